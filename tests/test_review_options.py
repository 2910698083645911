"""Config to options in one place: every default is the configuration's, written once."""

from __future__ import annotations

from pathlib import Path

import pytest

from mergegate.agents.base import AgentRequest
from mergegate.config import Config, load_config
from mergegate.errors import UsageError
from mergegate.processes import Limits
from mergegate.review import GatePolicy, ReviewAgents, ReviewOptions, report_root
from mergegate.verdicts import Severity


def test_the_library_defaults_are_the_configuration_defaults() -> None:
    config = Config()
    assert ReviewOptions(base="b") == ReviewOptions.from_config(config, base="b")
    request = AgentRequest(prompt="p", cwd=Path())
    assert request == AgentRequest(
        prompt="p", cwd=Path(), **AgentRequest.limits_from(config.agents)
    )
    limits = Limits()
    assert (limits.timeout_s, limits.stall_timeout_s, limits.kill_grace_s) == (
        config.agents.default_timeout_s,
        config.agents.default_stall_timeout_s,
        config.agents.kill_grace_s,
    )
    assert limits.log_cap_bytes == config.agents.max_output_bytes
    assert ReviewOptions(base="b").defer_out_of_scope is False  # binary by default


def test_from_config_reads_every_section(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "mergegate.toml").write_text(
        "[review]\nmax_rounds = 5\nrereview = 'full'\nstages = ['quality']\n"
        "defer_out_of_scope = true\n"
        "[review.policy]\nminor_blocks = true\nblocking_severities = ['critical']\n"
        "[agents]\ndefault_timeout_s = 60\nkill_grace_s = 2.5\nmax_output_bytes = 4096\n"
    )
    config = load_config(tmp_path)
    options = ReviewOptions.from_config(config, base="main", spec="Do X.", fix=True)
    assert (options.base, options.head, options.spec, options.fix) == (
        "main",
        "HEAD",
        "Do X.",
        True,
    )
    assert (options.max_rounds, options.rereview, options.stages) == (5, "full", ("quality",))
    assert options.defer_out_of_scope is True
    assert options.policy == GatePolicy(True, frozenset({Severity.CRITICAL}), True)
    assert options.agent_limits() == {
        "timeout_s": 60.0,
        "stall_timeout_s": 300.0,
        "kill_grace_s": 2.5,
        "max_output_bytes": 4096,
    }
    # Serialisable: the run engine checkpoints the options with its state.
    assert ReviewOptions.model_validate_json(options.model_dump_json()) == options


def test_review_agents_flags_beat_the_configured_pair(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "mergegate.toml").write_text(
        "[review]\nreviewer_cmd = 'configured-reviewer'\nimplementer = 'claude'\n"
    )
    config = load_config(tmp_path)
    agents = ReviewAgents.from_config(config)
    assert agents.reviewer.name == "command"
    assert agents.implementer is not None
    assert agents.implementer.name == "claude"
    flagged = ReviewAgents.from_config(config, reviewer="codex", implementer_cmd="impl")
    assert flagged.reviewer.name == "codex"  # the configured command is ignored as a pair
    assert flagged.implementer is not None
    assert flagged.implementer.name == "command"
    none = Config.model_validate({"review": {"reviewer": ""}})
    with pytest.raises(UsageError, match="no reviewer"):
        ReviewAgents.from_config(none)


def test_report_root(tmp_path: Path) -> None:
    config = Config.model_validate({"review": {"report_dir": str(tmp_path / "r")}})
    assert report_root(config) == tmp_path / "r"
    assert report_root(config, tmp_path / "given") == tmp_path / "given"
