"""The public API is what `__all__` lists; this pins it so changes are deliberate."""

from __future__ import annotations

import importlib

import pytest

import mergegate

EXPECTED_TOP_LEVEL = {
    "AgentError",
    "ConfigError",
    "Decision",
    "EscalationError",
    "ExitCode",
    "HandoffError",
    "MergegateError",
    "UndecidableError",
    "UsageError",
    "__version__",
    "worst_exit_code",
}


def test_top_level_exports_are_pinned() -> None:
    assert set(mergegate.__all__) == EXPECTED_TOP_LEVEL


EXPECTED_VERDICTS = {
    "DIALECTS",
    "Evidence",
    "Finding",
    "Severity",
    "Verdict",
    "extract_findings",
    "parse_verdict",
}


def test_verdicts_exports_are_pinned() -> None:
    import mergegate.verdicts

    assert set(mergegate.verdicts.__all__) == EXPECTED_VERDICTS


@pytest.mark.parametrize(
    "module", ["mergegate", "mergegate.agents", "mergegate.errors", "mergegate.verdicts"]
)
def test_every_exported_name_exists(module: str) -> None:
    mod = importlib.import_module(module)
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert missing == []
