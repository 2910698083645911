"""Help signals: whole lines of assistant text only, safe across arbitrary delta splits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mergegate.agents.base import HelpSignal
from mergegate.agents.signals import (
    HelpDetector,
    reconcile_requested_help,
    scan_text,
)

NS = "CLAUDE_CADENCE_SYSTEM_SIGNAL::HELP_REQUEST"


def markers(text: str) -> list[tuple[str, object]]:
    return [(s.marker, s.context) for s in scan_text(text)]


def test_whole_lines_only() -> None:
    assert markers(">>>HELP<<<") == [(">>>HELP<<<", None)]
    assert markers("  >>>HELP<<<  \n") == [(">>>HELP<<<", None)]
    assert markers(f"text\n{NS}\n") == [(NS, None)]
    assert markers("I could write >>>HELP<<< here") == []
    assert markers(">>>HELP<<<!") == []
    assert markers("`>>>HELP<<<`") == []
    assert markers("") == []


def test_context_on_the_next_line() -> None:
    assert markers('>>>HELP<<<\n{"reason": "stuck", "step": 17}\nmore') == [
        (">>>HELP<<<", {"reason": "stuck", "step": 17})
    ]
    assert markers(">>>HELP<<<\n[1, 2]") == [(">>>HELP<<<", None)]
    assert markers(">>>HELP<<<\n{broken") == [(">>>HELP<<<", None)]
    assert markers(">>>HELP<<<\n>>>HELP<<<") == [(">>>HELP<<<", None), (">>>HELP<<<", None)]


def test_messages_are_separate_buffers() -> None:
    detector = HelpDetector()
    detector.feed(">>>HE", "a")
    detector.feed("LP<<<", "b")  # another message: no joining across messages
    detector.end_message("a")
    detector.end_message("b")
    assert detector.signals == ()


def test_overlong_line_is_skipped() -> None:
    assert markers("x" * 100_000 + ">>>HELP<<<\n>>>HELP<<<") == [(">>>HELP<<<", None)]


_pieces = st.lists(
    st.sampled_from(["ok", " ", "\n", ">>>HELP<<<", NS, '{"a": 1}', "mid >>>HELP<<< line", "x"]),
    max_size=30,
)


@given(_pieces, st.lists(st.integers(min_value=0, max_value=400), max_size=10))
def test_split_points_never_change_the_result(pieces: list[str], cuts: list[int]) -> None:
    text = "".join(pieces)
    detector = HelpDetector(clock=lambda: 0.0)
    start = 0
    for cut in sorted(c % (len(text) + 1) for c in cuts):
        detector.feed(text[start:cut])
        start = cut
    detector.feed(text[start:])
    assert detector.finish() == scan_text(text)


@given(st.text(max_size=200))
def test_no_signal_without_a_marker_line(text: str) -> None:
    lines = [line.strip() for line in text.split("\n")]
    if ">>>HELP<<<" not in lines and NS not in lines:
        assert scan_text(text) == ()


def test_reconcile() -> None:
    sig = [HelpSignal(marker=">>>HELP<<<")]
    omitted = reconcile_requested_help(None, sig)
    assert omitted.requested_help
    assert omitted.source == "stream"
    assert reconcile_requested_help(False, sig).requested_help
    assert reconcile_requested_help(True, sig).source == "both"
    claimed = reconcile_requested_help(True, [])
    assert claimed.requested_help
    assert claimed.note
    assert not reconcile_requested_help(None, []).requested_help
    assert not reconcile_requested_help(False, []).requested_help
