"""Configuration: frozen values and one loader (defaults < file < environment < flags).

See `docs/configuration.md` for every key, its default and its environment variable.
Layer L0: reads files and the environment, never writes.
"""

from __future__ import annotations

from mergegate.config._database import DatabaseUrl, redact_url
from mergegate.config._load import (
    DATABASE_URL_ENV,
    ENV_PREFIX,
    STATE_DIR_ENV,
    ensure_state_dir,
    find_config_file,
    load_config,
    state_dir,
)
from mergegate.config._models import (
    DEFAULT_AGENTS,
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
)

__all__ = [
    "DATABASE_URL_ENV",
    "DEFAULT_AGENTS",
    "DEFAULT_ENGINE",
    "DEFAULT_REVIEW",
    "ENV_PREFIX",
    "MAX_ATTEMPTS_CEILING",
    "MAX_JSON_RETRIES_CEILING",
    "STATE_DIR_ENV",
    "AgentsConfig",
    "AlertsConfig",
    "Config",
    "DatabaseUrl",
    "EngineSettings",
    "HandoffValidationConfig",
    "HooksConfig",
    "RetryConfig",
    "ReviewConfig",
    "ReviewPolicyConfig",
    "RunConfig",
    "ensure_state_dir",
    "find_config_file",
    "load_config",
    "redact_url",
    "state_dir",
]
