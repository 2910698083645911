"""The database a run keeps its durable state in: its own SQLite file, or a shared one
(`[engine] database_url`), and the durable engine's configuration for it."""

from __future__ import annotations

from mergegate.config import Config, redact_url
from mergegate.engine._context.runtime import EngineRunRecord, RunOptions
from mergegate.errors import UsageError
from mergegate.ids import (
    queue_for_run,
    run_app_version,
)
from mergegate.store import (
    APP_VERSION,
    EngineConfig,
    RunStore,
    app_name_for_run,
    sqlite_url,
)

__all__ = [
    "DBOS_LOG",
    "check_database",
    "database_url_of",
    "engine_config",
]

DBOS_LOG = "dbos.log"
"""The durable engine's own log lines, in the run's folder (never on the console)."""


def engine_config(
    store: RunStore, run_id: str, options: RunOptions, database_url: str | None = None
) -> EngineConfig:
    """The run's own SQLite file; or a shared database (`[engine] database_url`), where the
    run has its own DBOS application name so no other run's process touches its workflows
    (and its own application version and queue: DBOS wants their names unique across
    applications)."""
    log_file = store.run_dir(run_id) / DBOS_LOG
    if database_url is None:
        return EngineConfig(
            sqlite_url(store.database_path(run_id)),
            concurrency=options.concurrency,
            log_file=log_file,
        )
    return EngineConfig(
        database_url,
        concurrency=options.concurrency,
        app_name=app_name_for_run(run_id),
        application_version=run_app_version(APP_VERSION, run_id),
        queue=queue_for_run(run_id),
        log_file=log_file,
    )


def database_url_of(config: Config) -> str | None:
    """`[engine] database_url` as the driver needs it (password included), or None."""
    found = config.engine.database_url
    return None if found is None else found.get_secret_value()


def check_database(record: EngineRunRecord, database_url: str | None) -> None:
    """A run continues on the database it started on, never silently on another one."""
    given = redact_url(database_url) if database_url else None
    if record.database != given:
        where = record.database or "its own SQLite file"
        raise UsageError(
            f"run {record.run_id} keeps its state in {where}, and this process is configured "
            f"for {given or 'per-run SQLite files'}: set [engine] database_url "
            "(or MERGEGATE_DATABASE_URL) as when the run started"
        )
