"""The HTML report, read as markup: self-contained, strict CSP, every agent text escaped."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _runs import HOSTILE, plan_run, write_run
from mergegate.events import AgentAttempt, EventStream, read_events
from mergegate.report import (
    MAX_RECORDS,
    REPORT_FILE,
    ReportLog,
    ReportRecord,
    content_security_policy,
    prepare_template,
    render_report,
    write_report,
)

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "div", "span",
    "nav", "a", "main", "section", "p", "b", "table", "tr", "th", "td", "svg", "line", "text",
    "g", "rect", "details", "summary", "pre",
}  # fmt: skip


class Markup(HTMLParser):
    """Every element and attribute of a page, as the HTML parser sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title" and len([t for t, _ in self.tags if t == "title"]) == 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def parse(page: str) -> Markup:
    markup = Markup()
    markup.feed(page)
    return markup


def assert_inert(page: str) -> Markup:
    """Nothing in the page can run or load: only our tags, no event handler, no link out."""
    markup = parse(page)
    tags = {tag for tag, _ in markup.tags}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    for tag, attrs in markup.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert name not in ("src", "srcdoc", "action", "formaction", "background"), (tag, name)
            if name == "href":
                assert value is not None
                assert value.startswith("#"), value
    assert "javascript:" not in " ".join(str(v) for _, a in markup.tags for v in a.values())
    return markup


def test_the_page_is_self_contained_with_a_strict_policy(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path, "r1", plan_run("r1", tasks=3))
    path = write_report(run_dir)
    assert path == run_dir / REPORT_FILE
    page = path.read_text()
    markup = assert_inert(page)
    csp = [a["content"] for t, a in markup.tags if t == "meta" and a.get("http-equiv")]
    assert csp == [content_security_policy()]
    policy = csp[0] or ""
    assert "default-src 'none'" in policy
    assert "img-src data:" in policy
    assert "script-src" not in policy  # default-src 'none' forbids every script
    assert "<script" not in page.lower()
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    assert "@import" not in page
    assert "url(" not in page
    # the style hash in the policy is the hash of the one style block
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert style is not None
    digest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"'sha256-{digest}'" in policy


def test_one_bar_per_attempt_and_the_sections(tmp_path: Path) -> None:
    events = plan_run("r1", tasks=4, reviews_per_task=3)
    page = render_report(EventStream(tuple(events)))
    markup = parse(page)
    bars = [
        a for t, a in markup.tags if t == "rect" and "attempt" in (a.get("class") or "").split()
    ]
    attempts = [e for e in events if isinstance(e, AgentAttempt)]
    assert len(bars) == len(attempts) == 4 * (1 + 3)
    failed = [b for b in bars if "fail" in (b.get("class") or "").split()]
    assert failed == []  # agent runs all went fine; the malformed answers are verdicts
    for section in ("alerts", "timeline", "components", "verdicts", "findings", "checks",
                    "verification", "usage"):  # fmt: skip
        assert ("section", {"id": section}) in markup.tags, section
    assert "L12: Ready to merge? Yes" in page  # a verdict's evidence line
    assert page.count('class="badge b-malformed"') >= 8  # 4 tasks x 2 malformed answers


def test_hostile_agent_text_is_only_ever_text(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path, "r1", plan_run("r1", tasks=2, text=HOSTILE))
    page = write_report(run_dir).read_text()
    markup = assert_inert(page)
    assert markup.title == "mergegate run r1"
    assert "&lt;script&gt;document.title=" in page
    assert "&lt;img src=x onerror=" in page
    assert "pwned" not in {t for t, _ in markup.tags}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=300) | st.sampled_from([HOSTILE, "</style><script>x</script>"]))
def test_no_agent_text_can_add_markup(text: str) -> None:
    page = render_report(EventStream(tuple(plan_run("r", tasks=1, text=text))))
    assert_inert(page)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=300) | st.sampled_from([HOSTILE, "</pre></details><script>x"]))
def test_no_record_text_can_add_markup(text: str) -> None:
    """A record from the database (a review, a summary: reviewer text inside) is only text."""
    records = [ReportRecord(title=text, markdown=f"# Review\n{text}\n")]
    page = render_report(EventStream(tuple(plan_run("r", tasks=1))), records=records)
    assert_inert(page)


def test_records_are_shown_escaped_and_bounded() -> None:
    records = [ReportRecord(title=f"Review of task P1/A/T{n}", markdown=HOSTILE) for n in range(3)]
    page = render_report(EventStream(tuple(plan_run("r", tasks=1))), records=records)
    markup = assert_inert(page)
    assert [t for t, _ in markup.tags].count("details") == 3
    assert "Review of task P1/A/T2" in page
    assert "&lt;script&gt;document.title=" in page
    many = [ReportRecord(title="t", markdown="m")] * (MAX_RECORDS + 7)
    page = render_report(EventStream(tuple(plan_run("r", tasks=1))), records=many)
    assert page.count("<details>") == MAX_RECORDS
    assert "7 more record(s) not shown." in page


def test_a_log_here_is_named_and_one_elsewhere_shown_by_its_end() -> None:
    common = {"role": "implementer", "status": "ok", "size": 10, "sha256": "ab" * 32}
    logs = [
        ReportLog(attempt="P1/A/T1/attempts/01", host="h1", path="/here/agent.log",
                  excerpt="HERE-TAIL", here=True, **common),
        ReportLog(attempt="P1/A/T2/attempts/01", host="worker-b", path="/w/agent.log",
                  excerpt=HOSTILE, here=False, **common),
    ]  # fmt: skip
    page = render_report(EventStream(tuple(plan_run("r", tasks=1))), logs=logs)
    assert_inert(page)
    assert "/here/agent.log" in page
    assert "HERE-TAIL" not in page  # the file is here: its path, not its end
    assert "full log on host <b>worker-b</b>" in page
    assert "&lt;script&gt;document.title=" in page


def test_a_shipped_copy_is_named_and_a_missing_one_said_why_escaped() -> None:
    common = {"role": "reviewer", "status": "ok", "size": 10, "sha256": "cd" * 32}
    logs = [
        ReportLog(attempt="P1/A/T1/review/r01-spec-a1", host=HOSTILE, excerpt="TAIL",
                  path="/state/runs/r/shipped-logs/x.log", here=True, copy_of=HOSTILE, **common),
        ReportLog(attempt="P1/A/T2/review/r01-spec-a1", host="worker-c", path="/w/agent.log",
                  excerpt="END", here=False, problem=HOSTILE, **common),
    ]  # fmt: skip
    page = render_report(EventStream(tuple(plan_run("r", tasks=1))), logs=logs)
    assert_inert(page)
    assert "copy shipped from host <b>&lt;script&gt;document.title=" in page
    assert "/state/runs/r/shipped-logs/x.log" in page
    assert "TAIL" not in page  # the copy is here: its path, not its end
    assert "full log on host <b>worker-c</b>" in page
    assert "; no copy here: &lt;script&gt;document.title=" in page


def test_an_empty_stream_still_makes_a_page(tmp_path: Path) -> None:
    (tmp_path / "events.jsonl").write_text("")
    page = write_report(tmp_path).read_text()
    assert_inert(page)
    assert "No agent usage recorded." in page


def test_unknown_and_replayed_events_are_noted(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path, "r1", plan_run("r1", tasks=1))
    with (run_dir / "events.jsonl").open("a") as handle:
        handle.write('{"kind": "future.thing", "at": "2026-03-01T09:00:00+00:00"}\n')
    page = write_report(run_dir, stream=read_events(run_dir)).read_text()
    assert "1 event(s) of kinds this version does not know" in page


def test_the_template_compiled_in_the_background_is_the_one_a_page_uses() -> None:
    """A run compiles the report's template as it starts (`prepare_template`); the end of the
    run waits for that compile and uses its result rather than compiling again."""
    from mergegate.report import _html

    _html._compiled.cache_clear()
    prepare_template().join()
    compiled = _html._template()
    prepare_template()
    assert _html._template() is compiled
    page = render_report(EventStream(tuple(plan_run("r", tasks=1))))
    assert_inert(page)
    assert _html._compiled.cache_info().misses == 1


def test_a_failed_background_compile_is_raised_by_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the background compile raises is not swallowed for good: nothing is cached, and
    the page's own call compiles anew (and raises the same error)."""
    from mergegate.report import _html

    _html._compiled.cache_clear()
    monkeypatch.setattr(_html, "Environment", _refusing_environment)
    prepare_template().join()
    with pytest.raises(RuntimeError, match="no template"):
        render_report(EventStream(tuple(plan_run("r", tasks=1))))
    monkeypatch.undo()
    _html._compiled.cache_clear()
    assert_inert(render_report(EventStream(tuple(plan_run("r", tasks=1)))))


def _refusing_environment(*_args: object, **_kwargs: object) -> object:
    raise RuntimeError("no template")


def _css_name_uncached(value: object) -> str:
    """The class-name rule as it was written before it was cached."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in str(value))[
        :40
    ]


@given(st.one_of(st.text(), st.integers(), st.none(), st.floats(allow_nan=False)))
def test_a_css_name_is_the_same_cached(value: object) -> None:
    from mergegate.report import _html

    assert _html._css_name(value) == _css_name_uncached(value)
    assert _html._css_name(value) == _css_name_uncached(value)  # the cached answer
