"""Configuration: frozen values and one loader (defaults < file < environment < flags).

See `docs/configuration.md` for every key, its default and its environment variable.
Layer L0: reads files and the environment, never writes.
"""

from __future__ import annotations

from mergegate.config._database import DatabaseUrl, redact_url
from mergegate.config._layout import StateLayout
from mergegate.config._load import (
    CONFIG_FILE,
    DATABASE_URL_ENV,
    ENV_PREFIX,
    PYPROJECT,
    STATE_DIR_ENV,
    ConfigText,
    ensure_state_dir,
    find_config_file,
    load_config,
    state_dir,
)
from mergegate.config._models import (
    DEFAULT_AGENTS,
    DEFAULT_CONCURRENCY,
    DEFAULT_ENGINE,
    DEFAULT_REVIEW,
    MAX_ATTEMPTS_CEILING,
    MAX_JSON_RETRIES_CEILING,
    AgentsConfig,
    AlertsConfig,
    Config,
    EngineSettings,
    HandoffValidationConfig,
    HooksConfig,
    RetryConfig,
    ReviewConfig,
    ReviewPolicyConfig,
    RunConfig,
    SandboxConfig,
)

__all__ = [
    "CONFIG_FILE",
    "DATABASE_URL_ENV",
    "DEFAULT_AGENTS",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_ENGINE",
    "DEFAULT_REVIEW",
    "ENV_PREFIX",
    "MAX_ATTEMPTS_CEILING",
    "MAX_JSON_RETRIES_CEILING",
    "PYPROJECT",
    "STATE_DIR_ENV",
    "AgentsConfig",
    "AlertsConfig",
    "Config",
    "ConfigText",
    "DatabaseUrl",
    "EngineSettings",
    "HandoffValidationConfig",
    "HooksConfig",
    "RetryConfig",
    "ReviewConfig",
    "ReviewPolicyConfig",
    "RunConfig",
    "SandboxConfig",
    "StateLayout",
    "ensure_state_dir",
    "find_config_file",
    "load_config",
    "redact_url",
    "state_dir",
]
