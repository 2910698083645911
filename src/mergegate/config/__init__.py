"""Configuration: frozen values and one loader (defaults < file < environment < flags).

See `docs/configuration.md` for every key, its default and its environment variable.
Layer L0: reads files and the environment, never writes.

Names are imported when first used (module `__getattr__`): the agent-CLI hook reads its
`[hooks]` section with `load_hooks` (standard library only) without loading pydantic and the
other sections' models (bench/bench_startup.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mergegate.lazy_exports import LazyExports

if TYPE_CHECKING:
    from mergegate.config._database import DatabaseUrl, object_store_dir, redact_url
    from mergegate.config._hooks import HooksSection, check_hooks, load_hooks
    from mergegate.config._layout import PhaseDir, RunLayout, StateLayout
    from mergegate.config._load import (
        DATABASE_URL_ENV,
        STATE_DIR_ENV,
        ensure_state_dir,
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
    from mergegate.config._sources import (
        CONFIG_FILE,
        ENV_PREFIX,
        PYPROJECT,
        ConfigText,
        find_config_file,
    )

_HOME = {
    "mergegate.config._database": ("DatabaseUrl", "object_store_dir", "redact_url"),
    "mergegate.config._hooks": ("HooksSection", "check_hooks", "load_hooks"),
    "mergegate.config._layout": ("PhaseDir", "RunLayout", "StateLayout"),
    "mergegate.config._load": (
        "DATABASE_URL_ENV",
        "STATE_DIR_ENV",
        "ensure_state_dir",
        "load_config",
        "state_dir",
    ),
    "mergegate.config._models": (
        "DEFAULT_AGENTS",
        "DEFAULT_CONCURRENCY",
        "DEFAULT_ENGINE",
        "DEFAULT_REVIEW",
        "MAX_ATTEMPTS_CEILING",
        "MAX_JSON_RETRIES_CEILING",
        "AgentsConfig",
        "AlertsConfig",
        "Config",
        "EngineSettings",
        "HandoffValidationConfig",
        "HooksConfig",
        "RetryConfig",
        "ReviewConfig",
        "ReviewPolicyConfig",
        "RunConfig",
        "SandboxConfig",
    ),
    "mergegate.config._sources": (
        "CONFIG_FILE",
        "ENV_PREFIX",
        "PYPROJECT",
        "ConfigText",
        "find_config_file",
    ),
}
_EXPORTS = LazyExports(globals(), _HOME)

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
    "HooksSection",
    "PhaseDir",
    "RetryConfig",
    "ReviewConfig",
    "ReviewPolicyConfig",
    "RunConfig",
    "RunLayout",
    "SandboxConfig",
    "StateLayout",
    "check_hooks",
    "ensure_state_dir",
    "find_config_file",
    "load_config",
    "load_hooks",
    "object_store_dir",
    "redact_url",
    "state_dir",
]


__getattr__ = _EXPORTS.attribute
__dir__ = _EXPORTS.names
