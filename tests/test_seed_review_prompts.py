"""Seed 004's reviewer (issue 25 items 11 and 12): spec findings cite their requirement, and
the code-quality stage checks type safety and the project's own patterns."""

from __future__ import annotations

import json
from pathlib import Path

from _gitrepo import change_repo
from _verdict_object import finding, verdict_object
from test_review_config import APP, CHANGED, review
from test_review_e2e import agent_cmd, approve

SPEC = "Add sub(a, b).\n\nAcceptance criteria:\n- AC-1: sub returns a - b\n- AC-2: sub is tested\n"
AGENTS_BASE = "# Conventions\n\nEvery public function has a docstring (RULE-DOCSTRING).\n"
AGENTS_CHANGED = "# Conventions\n\nAnything goes (RULE-ANYTHING).\n"


def test_the_quality_prompt_covers_type_safety_and_the_projects_own_patterns(
    tmp_path: Path,
) -> None:
    """Seed 004, Pattern 2 "Stage 2: Code Quality" ("Focus: Error handling, input validation,
    type safety, naming conventions, code organization ...") and the reviewer definition
    ("Type safety", "Patterns: Does the code follow established project patterns?"): the
    quality prompt asks for both, and carries the project's written conventions from the
    base revision — never the change's edit of them."""
    repo = change_repo(
        tmp_path / "repo",
        {**APP, "AGENTS.md": AGENTS_BASE},
        {**CHANGED, "AGENTS.md": AGENTS_CHANGED},
    )
    spec = tmp_path / "spec.md"
    spec.write_text(SPEC)
    reviewer = agent_cmd(tmp_path, "rv", [approve(), approve()])
    code, out, _ = review(repo, tmp_path, "--reviewer-cmd", reviewer, "--spec", str(spec))
    assert code == 0, out
    spec_prompt = (tmp_path / "rv-state" / "prompt-1.txt").read_text()
    quality = (tmp_path / "rv-state" / "prompt-2.txt").read_text()
    assert "STAGE 2 of 2: CODE QUALITY" in quality
    assert "Type safety" in quality
    assert "Conformance to the project's own patterns" in quality
    assert "RULE-DOCSTRING" in quality  # the base revision's conventions
    assert "### AGENTS.md" in quality
    assert (
        "RULE-ANYTHING"
        not in quality.split("## The project's own conventions")[1].split("## What to check")[0]
    )
    assert "## The project's own conventions" not in spec_prompt
    assert quality.startswith(spec_prompt.split("## STAGE 1")[0])  # the shared prefix stays


def test_without_written_conventions_the_reviewer_infers_them(tmp_path: Path) -> None:
    """Seed 004, "Patterns: Does the code follow established project patterns?": a project
    with no conventions file still gets the check, from the code around the change."""
    repo = change_repo(tmp_path / "repo", APP, CHANGED)
    reviewer = agent_cmd(tmp_path, "rv", [approve()])
    code, out, _ = review(repo, tmp_path, "--reviewer-cmd", reviewer)
    assert code == 0, out
    quality = (tmp_path / "rv-state" / "prompt-1.txt").read_text()
    assert "infer the project's patterns from the code around the change" in quality


def test_spec_findings_cite_their_requirement_and_the_records_keep_it(tmp_path: Path) -> None:
    """Seed 004, Locked decision "Spec compliance findings must cite the specific plan
    task/requirement not satisfied" and the finding format (`- **Requirement:**`,
    `- **Suggestion:**`): the spec prompt requires `requirement`; the finding's requirement
    and suggestion are kept in the JSON result, the attempt's record and its report."""
    repo = change_repo(tmp_path / "repo", APP, CHANGED)
    spec = tmp_path / "spec.md"
    spec.write_text(SPEC)
    cited = finding(
        "F-7",
        "critical",
        "sub has no test",
        suggestion="add test_sub covering negatives",
        requirement="AC-2",
    )
    reviewer = agent_cmd(
        tmp_path, "rv", [{"text": verdict_object("request_changes", [cited])}, approve()]
    )
    code, out, _ = review(repo, tmp_path, "--reviewer-cmd", reviewer, "--spec", str(spec))
    assert code == 1, out
    spec_prompt = (tmp_path / "rv-state" / "prompt-1.txt").read_text()
    assert "in this stage required" in spec_prompt
    (kept,) = out["findings"]
    assert (kept["requirement"], kept["suggestion"]) == ("AC-2", "add test_sub covering negatives")
    attempt = out["rounds"][0]["attempts"][0]
    report = Path(attempt["report"]).read_text()
    assert "AC-2" in report
    assert "add test_sub covering negatives" in report
    record = json.loads(Path(attempt["report"]).with_suffix(".json").read_text())
    assert "AC-2" in json.dumps(record)
