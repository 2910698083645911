"""An implementer's handoff event ids (`HandoffEventId`: `read:<task>/<folder>/<type>/<attempt>`,
`help:<task>/<n>`) read back as what they were made from, in the bytes earlier runs recorded in
their event logs (issue 26 item 2: they were composed in `engine/_steps/implementer_turn.py`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _id_strategies import components
from mergegate.ids import HandoffEventId, HandoffEventKind, IdError, WorkflowId

place_parts = st.from_regex(r"[A-Za-z0-9._-]{0,12}", fullmatch=True)
RUN = "20260101-120000-abcd"


def test_the_bytes_are_the_ones_earlier_runs_recorded() -> None:
    task = WorkflowId.task(RUN, "A", "T1")
    read = HandoffEventId.read(task, "impl-01", "handoff.attempt", "2")
    assert read.format() == f"read:{RUN}/A/T1/impl-01/handoff.attempt/2"
    assert HandoffEventId.read(task, "impl-01", "None", "").format() == (
        f"read:{RUN}/A/T1/impl-01/None/"
    )
    assert HandoffEventId.help(task, 3).format() == f"help:{RUN}/A/T1/3"


@given(
    components,
    components,
    st.sampled_from(list(HandoffEventKind)),
    st.lists(place_parts, min_size=1, max_size=4),
)
def test_handoff_event_ids_round_trip(
    unit: str, task: str, kind: HandoffEventKind, place: list[str]
) -> None:
    made = HandoffEventId(kind, WorkflowId.task(RUN, unit, task), tuple(place))
    assert HandoffEventId.parse(made.format()) == made


@pytest.mark.parametrize(
    "text",
    [
        "",
        f"note:{RUN}/A/T1/3",
        f"help{RUN}/A/T1/3",
        f"help:{RUN}/A/T1",
        f"help:{RUN}/A/3",
        f"help:{RUN}/A /T1/3",
        f"help:{RUN}//T1/3",
    ],
)
def test_what_is_no_handoff_event_id_is_refused(text: str) -> None:
    with pytest.raises(IdError):
        HandoffEventId.parse(text)


def test_a_part_that_would_move_the_boundaries_is_refused() -> None:
    task = WorkflowId.task(RUN, "A", "T1")
    for bad in ("a/b", "a b", "a\n"):
        with pytest.raises(IdError):
            HandoffEventId.read(task, bad, "t", "1")
    with pytest.raises(IdError):
        HandoffEventId.help(WorkflowId.task(RUN, "A", "T1", "again-g2"), 1)
    with pytest.raises(IdError):
        HandoffEventId(HandoffEventKind.HELP, task, ())
