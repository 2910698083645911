"""Progress of a review run: the loop's events, the plain and rich renderers, `--progress`.

Reviewer text is hostile here on purpose: terminal escape sequences (clear screen, window
title, 8-bit CSI), rich markup, bidi overrides and huge lines must never reach a terminal.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import unicodedata
from collections.abc import Sequence
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from _gitrepo import change_repo
from _verdict_object import finding as object_finding
from _verdict_object import pins_of, verdict_object
from mergegate.agents.base import AgentRequest
from mergegate.cli import cli
from mergegate.cli._progress import (
    MAX_DETAIL_LINES,
    PlainRenderer,
    RichRenderer,
    choose_mode,
    clean,
)
from mergegate.review import EventKind, ReviewEvent, ReviewLoop, ReviewOptions
from mergegate.testing.scripted import ScriptedBackend

FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"

HOSTILE = [
    "\x1b[2J\x1b[HScreen wiped",  # clear screen, cursor home
    "\x1b]0;pwned-title\x07Window title set",  # OSC: set the terminal title
    "\x1b]8;;file:///etc/passwd\x1b\\click me\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x9b31mEight-bit CSI",  # 8-bit CSI (UTF-8 terminals may honour it)
    "[bold red]Fake alarm[/bold red] and [link=https://evil.example]link[/link]",
    "Bidi \u202etxt.exe\u202c trick",
    "Line\nbreak\rcarriage\x08backspace\x00nul",
    ":thumbs_up: emoji code",
    "trailing backslash \\",
]
PAYLOADS = ("pwned-title", "/etc/passwd")  # carried inside escape sequences: must vanish


# ---------------------------------------------------------------- helpers
def trailer_text(request: AgentRequest, verdict: str, findings: list[dict[str, Any]]) -> str:
    review_id, scope = pins_of(request)  # the nonce and scope the loop gave this attempt
    return verdict_object(verdict, findings, review_id=review_id, scope=scope)


def finding(fid: str, title: str, severity: str = "important") -> dict[str, Any]:
    return object_finding(fid, severity, title)


class MemoryRepo:
    """An in-memory `Repository`: one change, and a new sha per fix commit."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.shas = {"HEAD~1": "a" * 40, "HEAD": "b" * 40}
        self.commits = 0

    def resolve(self, ref: str) -> str:
        return self.shas.get(ref, ref)

    def diff(self, base: str, head: str) -> str:
        return f"--- a/app.py\n+++ b/app.py\n@@ {base[:4]}..{head[:4]} @@\n+x = 1\n"

    def changed_files(self, base: str, head: str) -> list[str]:
        return ["app.py"]

    def read_file(self, rev: str, path: str) -> str | None:
        return "x = 1\n"

    def read_files(self, rev: str, paths: Sequence[str]) -> dict[str, str | None]:
        return {p: self.read_file(rev, p) for p in paths}

    def commit_all(self, message: str) -> str | None:
        self.commits += 1
        return f"{self.commits:x}" * 40

    def checkout(self, rev: str) -> contextlib.nullcontext[Path]:
        return contextlib.nullcontext(self.root)


def run_loop(tmp_path: Path, reviewer_replies: list[Any], *, fix: bool) -> list[ReviewEvent]:
    events: list[ReviewEvent] = []
    lines: list[str] = []
    implementer = ScriptedBackend(["fixed it"], name="impl") if fix else None
    loop = ReviewLoop(
        MemoryRepo(tmp_path),
        ScriptedBackend(reviewer_replies, name="rv"),
        ReviewOptions(base="HEAD~1", spec="Add x.", fix=fix),
        report_root=tmp_path / "reports",
        implementer=implementer,
        progress=lines.append,
        events=events.append,
    )
    loop.run()
    # The plain-callable `progress` of library users gets every event's message, in order.
    assert lines == [e.message for e in events]
    return events


CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def rich_console(width: int = 100) -> tuple[Console, StringIO]:
    buf = StringIO()
    return Console(file=buf, force_terminal=True, width=width, color_system="truecolor"), buf


def assert_terminal_safe(output: str) -> None:
    """Only rich's own CSI sequences (style, erase line, cursor) may be in the output."""
    finals = {m.group(0)[-1] for m in CSI.finditer(output)}
    assert finals <= set("mKAhlG"), finals
    rest = CSI.sub("", output)
    assert "\x1b" not in rest
    bad = {c for c in rest if c not in "\n\r" and unicodedata.category(c)[0] == "C"}
    assert not bad, bad
    for payload in PAYLOADS:
        assert payload not in output


# ---------------------------------------------------------------- the loop's events
def test_event_sequence_of_a_fix_loop(tmp_path: Path) -> None:
    replies = [
        "The code looks fine to me.",  # spec: malformed -> retried once
        lambda r: trailer_text(r, "approve", []),
        lambda r: trailer_text(r, "request_changes", [finding("F-1", "Missing test")]),
        lambda r: trailer_text(r, "approve", []),  # round 2: scoped quality re-review
    ]
    events = run_loop(tmp_path, replies, fix=True)
    K = EventKind
    assert [(e.kind, e.round, e.stage, e.attempt) for e in events] == [
        (K.ROUND_STARTED, 1, "", 0),
        (K.AGENT_STARTED, 1, "spec", 1),
        (K.AGENT_FINISHED, 1, "spec", 1),
        (K.RETRY, 1, "spec", 1),
        (K.AGENT_STARTED, 1, "spec", 2),
        (K.AGENT_FINISHED, 1, "spec", 2),
        (K.NOTICE, 1, "spec", 2),  # "approve (retry succeeded)"
        (K.STAGE_RESULT, 1, "spec", 0),
        (K.AGENT_STARTED, 1, "quality", 1),
        (K.AGENT_FINISHED, 1, "quality", 1),
        (K.STAGE_RESULT, 1, "quality", 0),
        (K.AGENT_STARTED, 1, "fix", 1),
        (K.AGENT_FINISHED, 1, "fix", 1),
        (K.FIX_COMMITTED, 1, "fix", 0),
        (K.ROUND_STARTED, 2, "", 0),
        (K.AGENT_STARTED, 2, "quality", 1),
        (K.AGENT_FINISHED, 2, "quality", 1),
        (K.STAGE_RESULT, 2, "quality", 0),
        (K.FINISHED, 2, "", 0),
    ]
    results = [e for e in events if e.kind is K.STAGE_RESULT]
    assert [e.ok for e in results] == [True, False, True]
    assert "retrying once" in events[3].message
    assert "retry succeeded" in events[6].message
    assert len(results[1].details) == 1
    assert "Missing test" in results[1].details[0]
    assert "scoped" in events[14].message
    assert events[-1].ok is True


def test_event_sequence_without_spec_and_a_rejection(tmp_path: Path) -> None:
    replies = [lambda r: trailer_text(r, "request_changes", [finding("F-9", "Bug")])]
    events: list[ReviewEvent] = []
    loop = ReviewLoop(
        MemoryRepo(tmp_path),
        ScriptedBackend(replies),
        ReviewOptions(base="HEAD~1"),
        report_root=tmp_path / "reports",
        events=events.append,
    )
    outcome = loop.run()
    assert [e.kind for e in events] == [
        EventKind.NOTICE,  # no --spec: the spec stage is skipped
        EventKind.ROUND_STARTED,
        EventKind.AGENT_STARTED,
        EventKind.AGENT_FINISHED,
        EventKind.STAGE_RESULT,
        EventKind.FINISHED,
    ]
    assert events[-1].ok is False
    assert outcome.status.value in events[-1].message


def test_escalation_and_agent_failure_events(tmp_path: Path) -> None:
    same = [lambda r: trailer_text(r, "request_changes", [finding("F-1", "Still broken")])] * 5
    events = run_loop(tmp_path, same, fix=True)
    kinds = [e.kind for e in events]
    assert EventKind.ESCALATED in kinds
    assert kinds.index(EventKind.ESCALATED) < kinds.index(EventKind.FINISHED)
    assert events[-1].ok is False

    failed = run_loop(tmp_path / "second", [], fix=False)  # the script is exhausted: error
    finished = [e for e in failed if e.kind is EventKind.AGENT_FINISHED]
    assert [e.ok for e in finished] == [False]


def test_the_ledger_records_architectural_findings_as_advisory(tmp_path: Path) -> None:
    arch = finding("A-1", "Architecture: use an event bus", severity="minor")
    events: list[ReviewEvent] = []
    outcome = ReviewLoop(
        MemoryRepo(tmp_path),
        ScriptedBackend([lambda r: trailer_text(r, "approve", [arch])]),
        ReviewOptions(base="HEAD~1"),
        report_root=tmp_path / "reports",
        events=events.append,
    ).run()
    assert outcome.status.value == "approved"
    (record,) = outcome.findings
    assert (record.finding.severity.value, record.status.value) == ("minor", "advisory")
    (result,) = [e for e in events if e.kind is EventKind.STAGE_RESULT]
    assert result.details[0].startswith("[minor]")


def test_an_approving_object_with_a_blocking_architectural_finding_is_not_approval(
    tmp_path: Path,
) -> None:
    """The approval rule reads no title: a critical finding blocks whatever its title says."""
    arch = finding("A-1", "Architecture: use an event bus", severity="critical")
    outcome = ReviewLoop(
        MemoryRepo(tmp_path),
        ScriptedBackend([lambda r: trailer_text(r, "approve", [arch])]),
        ReviewOptions(base="HEAD~1"),
        report_root=tmp_path / "reports",
    ).run()
    assert outcome.status.value != "approved"


# ---------------------------------------------------------------- choosing a renderer
@pytest.mark.parametrize(
    ("isatty", "env", "expected"),
    [
        (True, {}, "rich"),
        (False, {}, "plain"),
        (True, {"CI": "true"}, "plain"),
        (True, {"CI": "1"}, "plain"),
        (True, {"CI": "false"}, "rich"),
        (True, {"CI": "0"}, "rich"),
        (True, {"TERM": "dumb"}, "plain"),
        (True, {"NO_COLOR": "1"}, "rich"),  # live display kept; rich drops the colour itself
    ],
)
def test_auto_mode(isatty: bool, env: dict[str, str], expected: str) -> None:
    assert choose_mode("auto", isatty=isatty, env=env) == expected


@pytest.mark.parametrize("mode", ["rich", "plain", "none"])
def test_an_explicit_mode_is_kept(mode: Any) -> None:
    assert choose_mode(mode, isatty=False, env={"CI": "true", "TERM": "dumb"}) == mode


# ---------------------------------------------------------------- clean()
@pytest.mark.parametrize("text", HOSTILE)
def test_clean_removes_escapes_and_controls(text: str) -> None:
    out = clean(text)
    assert "\x1b" not in out
    assert "\n" not in out
    assert all(unicodedata.category(c)[0] != "C" for c in out)
    for payload in PAYLOADS:  # escape-sequence payloads vanish with their sequence
        assert payload not in out


def test_clean_keeps_visible_text_and_markup_literally() -> None:
    assert clean("\x1b[31mred\x1b[0m text") == "red text"
    assert clean("[bold red]x[/]") == "[bold red]x[/]"  # escaping markup is the renderer's job
    assert clean("  a \t\n b  ") == "a b"


@settings(max_examples=300)
@given(st.text(), st.integers(min_value=1, max_value=400))
def test_clean_is_one_bounded_safe_line(text: str, limit: int) -> None:
    out = clean(text, limit)
    assert len(out) <= limit
    assert all(unicodedata.category(c)[0] != "C" for c in out)
    assert out == out.strip()
    assert "  " not in out


def test_clean_of_a_huge_line_is_bounded() -> None:
    out = clean("A" * 5_000_000 + "\x1b[2J", 300)
    assert len(out) == 300
    assert out.endswith("…")


# ---------------------------------------------------------------- renderers
def hostile_events() -> list[ReviewEvent]:
    events = [
        ReviewEvent(EventKind.ROUND_STARTED, "round 1: reviewing a..b", round=1),
        ReviewEvent(EventKind.AGENT_STARTED, "round 1: quality \x1b[2J review", 1, "quality", 1),
        ReviewEvent(EventKind.AGENT_FINISHED, "quality reviewer finished (ok)", 1, "quality", 1),
        ReviewEvent(
            EventKind.RETRY, "quality review output missing \x1b]0;pwned-title\x07 — retrying once"
        ),
    ]
    events.append(
        ReviewEvent(
            EventKind.STAGE_RESULT,
            "quality review: fixes — approval conditional on fixes",
            round=1,
            stage="quality",
            ok=False,
            details=(*HOSTILE, "x" * 1_000_000),
        )
    )
    events.append(ReviewEvent(EventKind.ESCALATED, "escalating: [red]F-\x9b2J1[/red]"))
    return events


def test_plain_renderer_lines_are_safe_and_greppable() -> None:
    lines: list[str] = []
    render = PlainRenderer(lines.append)
    for event in hostile_events():
        render(event)
    assert all(line.startswith("mergegate: ") for line in lines)
    assert all(len(line) < 600 for line in lines)
    text = "\n".join(lines)
    assert_terminal_safe(text)
    assert "[bold red]Fake alarm[/bold red]" in text  # shown as typed, never interpreted
    assert not any(re.search(r"\d\d:\d\d:\d\d", line) for line in lines)  # no timestamps
    assert not any("finished (ok)" in line for line in lines)  # a normal finish is silent


def test_plain_renderer_caps_the_findings_listed() -> None:
    lines: list[str] = []
    details = tuple(f"[minor] F-{i} open: nit {i}" for i in range(MAX_DETAIL_LINES + 7))
    PlainRenderer(lines.append)(ReviewEvent(EventKind.STAGE_RESULT, "r", details=details))
    assert len(lines) == 1 + MAX_DETAIL_LINES + 1
    assert "7 more" in lines[-1]


def test_rich_renderer_escapes_hostile_text_with_a_live_display() -> None:
    console, buf = rich_console()
    with RichRenderer(console) as render:
        for event in hostile_events():
            render(event)
    output = buf.getvalue()
    assert_terminal_safe(output)
    visible = CSI.sub("", output)
    assert "[bold red]Fake alarm[/bold red]" in visible  # markup escaped, shown literally
    assert "\x1b]8;" not in output  # no hyperlink was created from [link=...]
    assert "👍" not in visible  # emoji codes are not replaced
    assert len(output) < 20_000  # the megabyte title was cut


def test_rich_renderer_shows_round_stage_attempt_and_elapsed_time() -> None:
    console, buf = rich_console()
    with RichRenderer(console) as render:
        render(ReviewEvent(EventKind.AGENT_STARTED, "round 2: spec review, attempt 1 (x)", 2))
        spinner_frame = CSI.sub("", buf.getvalue())
        render(ReviewEvent(EventKind.AGENT_FINISHED, "spec reviewer finished (ok)", ok=True))
        render(ReviewEvent(EventKind.STAGE_RESULT, "spec review: approve — approved", ok=True))
    assert "round 2: spec review, attempt 1 (x)" in spinner_frame
    assert re.search(r"\d:\d\d:\d\d", spinner_frame)  # the elapsed-time column
    visible = CSI.sub("", buf.getvalue())
    assert "✓ spec review: approve — approved" in visible


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=2000), st.text(max_size=300))
def test_both_renderers_are_safe_for_any_text(message: str, title: str) -> None:
    event = ReviewEvent(EventKind.STAGE_RESULT, message, ok=False, details=(title,))
    lines: list[str] = []
    PlainRenderer(lines.append)(event)
    assert_terminal_safe("\n".join(lines))
    console, buf = rich_console()
    RichRenderer(console)(event)  # not entered: no live thread, same line rendering
    assert_terminal_safe(buf.getvalue())


# ---------------------------------------------------------------- the CLI
@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return change_repo(tmp_path / "repo", {"app.py": "x = 1\n"}, {"app.py": "x = 2\n"})


def reviewer_cmd(tmp_path: Path, titles: list[str]) -> str:
    findings = [finding(f"F-{i}", t) for i, t in enumerate(titles)]
    text = verdict_object("request_changes", findings)
    script = tmp_path / "rv.json"
    script.write_text(json.dumps([{"text": text}]))
    return f"{sys.executable} {FAKE} {script} {tmp_path / 'rv-state'}"


def invoke(repo: Path, tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> Any:
    args = ["review", "--repo", str(repo), "--report-dir", str(tmp_path / "reports"), *extra]
    return CliRunner().invoke(cli, args, env=env)


def test_cli_in_ci_prints_plain_lines(repo: Path, tmp_path: Path) -> None:
    cmd = reviewer_cmd(tmp_path, ["Missing test"])
    result = invoke(repo, tmp_path, "--reviewer-cmd", cmd, env={"CI": "true"})
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines
    assert all(line.startswith("mergegate: ") for line in lines)
    assert "\x1b" not in result.stderr
    steps = [
        "skipping the spec-compliance stage",
        "round 1: reviewing",
        "round 1: quality review, attempt 1 (command)",
        "quality review: fixes",
        "Missing test",
    ]
    positions = [next(i for i, ln in enumerate(lines) if s in ln) for s in steps]
    assert positions == sorted(positions)


def test_cli_json_keeps_stdout_clean_and_progress_none_is_silent(
    repo: Path, tmp_path: Path
) -> None:
    cmd = reviewer_cmd(tmp_path, ["Missing test"])
    result = invoke(repo, tmp_path, "--reviewer-cmd", cmd, "--format", "json", "--progress", "none")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["decision"] == "fixes"
    assert result.stderr == ""


def test_cli_rich_mode_and_text_summary_escape_hostile_titles(repo: Path, tmp_path: Path) -> None:
    cmd = reviewer_cmd(tmp_path, HOSTILE[:5])
    result = invoke(repo, tmp_path, "--reviewer-cmd", cmd, "--progress", "rich")
    assert result.exit_code == 1
    assert_terminal_safe(result.stderr)
    assert_terminal_safe(result.stdout)
    assert "\x1b" not in result.stdout  # the final summary has no escape sequence at all
    assert "[bold red]Fake alarm[/bold red]" in result.stdout
    assert "Screen wiped" in result.stdout
