"""FindingLedger: findings across revision rounds, deferral, resolution and stall detection."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mergegate.review import FindingLedger, FindingStatus
from mergegate.verdicts import Finding, Severity

BUG = Finding.make(Severity.IMPORTANT, "Off-by-one in the loop", file="app.py", line=3)
CRASH = Finding.make(Severity.CRITICAL, "Crashes on empty input", file="app.py", line=9)
ELSEWHERE = Finding.make(Severity.IMPORTANT, "Unsafe default", file="config.py", line=1)
NIT = Finding.make(Severity.MINOR, "Rename x", file="app.py")


def review(
    ledger: FindingLedger,
    round: int,
    *findings: Finding,
    stage: str = "quality",
    scope: set[str] | None = None,
    advisory: tuple[Finding, ...] = (NIT,),
) -> None:
    """Record a review in which every finding except the `advisory` ones blocks."""
    ledger.record_review(
        round=round,
        stage=stage,
        findings=findings,
        blocking_ids=frozenset(f.id for f in findings if f not in advisory),
        scope_files=frozenset(scope) if scope is not None else None,
    )


def status(ledger: FindingLedger) -> dict[str, FindingStatus]:
    return {r.finding.id: r.status for r in ledger.records}


def test_ids_are_kept_across_rounds() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG, CRASH)
    again = Finding.make(Severity.IMPORTANT, "  off-by-one in the LOOP ", file="app.py", line=4)
    assert again.id == BUG.id  # the id is derived from content, not wording noise or line
    review(ledger, 2, again, scope={"app.py"})
    assert len(ledger.records) == 2
    record = next(r for r in ledger.records if r.finding.id == BUG.id)
    assert record.first_round == 1
    assert [r for r, _ in record.history] == [1, 2]
    assert "still reported" in record.history[-1][1]
    assert record.finding.line == 4  # the latest report is kept


def test_a_finding_absent_from_a_scoped_rereview_is_resolved() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG, CRASH)
    review(ledger, 2, CRASH, scope={"app.py"})
    assert status(ledger) == {BUG.id: FindingStatus.RESOLVED, CRASH.id: FindingStatus.OPEN}
    assert ledger.open_blocking() == (CRASH,)
    resolved = next(r for r in ledger.records if r.finding.id == BUG.id)
    assert resolved.history[-1] == (2, "resolved (not reported by the re-review)")


def test_resolution_is_per_stage() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG, stage="spec")
    review(ledger, 1, CRASH, stage="quality")
    review(ledger, 2, stage="quality", scope={"app.py"})  # only quality was re-reviewed
    assert status(ledger) == {BUG.id: FindingStatus.OPEN, CRASH.id: FindingStatus.RESOLVED}


def test_new_blocking_finding_outside_the_fix_is_deferred() -> None:
    ledger = FindingLedger(defer_out_of_scope=True)
    review(ledger, 1, BUG)
    no_file = Finding.make(Severity.CRITICAL, "Design leaks memory")
    review(ledger, 2, ELSEWHERE, no_file, CRASH, scope={"app.py"})
    assert status(ledger) == {
        BUG.id: FindingStatus.RESOLVED,
        ELSEWHERE.id: FindingStatus.DEFERRED,  # config.py was not in the fix diff
        no_file.id: FindingStatus.DEFERRED,  # nowhere in particular: not in the fix either
        CRASH.id: FindingStatus.OPEN,  # new, but on a file the fix touched
    }
    assert ledger.open_blocking() == (CRASH,)


def test_first_round_findings_are_never_deferred() -> None:
    ledger = FindingLedger()
    review(ledger, 1, ELSEWHERE)  # a full review has no scope
    assert status(ledger) == {ELSEWHERE.id: FindingStatus.OPEN}


def test_deferral_is_off_by_default() -> None:
    """Binary by default: a blocking finding outside the fix diff blocks like any other."""
    ledger = FindingLedger()
    review(ledger, 1, BUG)
    review(ledger, 2, ELSEWHERE, scope={"app.py"})
    assert status(ledger)[ELSEWHERE.id] is FindingStatus.OPEN
    assert ledger.open_blocking() == (ELSEWHERE,)


def test_deferral_can_be_turned_off() -> None:
    ledger = FindingLedger(defer_out_of_scope=False)
    review(ledger, 1, BUG)
    review(ledger, 2, BUG, ELSEWHERE, scope={"app.py"})
    assert status(ledger)[ELSEWHERE.id] is FindingStatus.OPEN


def test_non_blocking_findings_are_advisory_and_never_open() -> None:
    ledger = FindingLedger()
    review(ledger, 1, NIT, BUG)
    assert status(ledger)[NIT.id] is FindingStatus.ADVISORY
    assert ledger.open_blocking() == (BUG,)
    review(ledger, 2, scope={"app.py"})
    assert status(ledger)[NIT.id] is FindingStatus.ADVISORY  # not resolved, never blocked


def test_no_stall_while_open_findings_decrease() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG, CRASH)
    review(ledger, 2, CRASH, scope={"app.py"})
    assert ledger.stall_reason(2) is None
    review(ledger, 3, scope={"app.py"})
    assert ledger.stall_reason(3) is None
    assert ledger.open_blocking() == ()


def test_stall_when_open_blocking_count_does_not_decrease() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG)
    other = Finding.make(Severity.IMPORTANT, "A new problem in the fix", file="app.py")
    review(ledger, 2, other, scope={"app.py"})  # one fixed, one new: still 1 open
    reason = ledger.stall_reason(2)
    assert reason is not None
    assert "did not decrease (1 -> 1)" in reason


def test_stall_when_a_resolved_finding_comes_back() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG, CRASH)
    review(ledger, 2, CRASH, scope={"app.py"})  # BUG resolved: 2 -> 1, converging
    assert ledger.stall_reason(2) is None
    review(ledger, 3, BUG, scope={"app.py"})  # CRASH resolved, but BUG is back
    reason = ledger.stall_reason(3)
    assert reason is not None
    assert BUG.id in reason
    assert "came back" in reason
    assert status(ledger)[BUG.id] is FindingStatus.OPEN
    back = next(r for r in ledger.records if r.finding.id == BUG.id)
    assert [event for _, event in back.history][-1] == "came back after it was resolved"


def test_first_round_never_stalls() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG, CRASH)
    assert ledger.stall_reason(1) is None


def test_to_dict_carries_the_history() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG)
    review(ledger, 2, scope={"app.py"})
    (record,) = [r.to_dict() for r in ledger.records]
    assert record["id"] == BUG.id
    assert record["status"] == "resolved"
    assert record["history"] == [
        {"round": 1, "event": "reported (open)"},
        {"round": 2, "event": "resolved (not reported by the re-review)"},
    ]


POOL = [
    Finding.make(sev, f"problem {i}", file=f"f{i % 3}.py")
    for i, sev in enumerate([Severity.CRITICAL, Severity.IMPORTANT, Severity.MINOR] * 3)
]


@given(st.lists(st.lists(st.sampled_from(POOL), unique_by=lambda f: f.id), max_size=6))
def test_invariants_over_any_sequence_of_rounds(rounds: list[list[Finding]]) -> None:
    """Ids are unique, open_blocking is exactly the OPEN records, minor findings never open,
    and a stall is reported whenever the open count fails to drop between rounds."""
    ledger = FindingLedger()
    counts: list[int] = []
    for number, findings in enumerate(rounds, start=1):
        scope = None if number == 1 else {"f0.py", "f1.py"}
        advisory = tuple(f for f in findings if f.severity is Severity.MINOR)
        review(ledger, number, *findings, scope=scope, advisory=advisory)
        ids = [r.finding.id for r in ledger.records]
        assert len(ids) == len(set(ids))
        open_ids = {r.finding.id for r in ledger.records if r.status is FindingStatus.OPEN}
        assert {f.id for f in ledger.open_blocking()} == open_ids
        assert all(f.severity is not Severity.MINOR for f in ledger.open_blocking())
        counts.append(len(open_ids))
        if number > 1 and 0 < counts[-1] >= counts[-2]:
            assert ledger.stall_reason(number) is not None


def test_a_reworded_finding_that_names_the_known_id_keeps_it() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG)
    reworded = Finding.make(
        Severity.IMPORTANT, "Loop stops one item early", file="app.py", ref=BUG.id
    )
    assert reworded.id != BUG.id
    review(ledger, 2, reworded, scope={"app.py"})
    assert [r.finding.id for r in ledger.records] == [BUG.id]
    record = ledger.records[0]
    assert record.status is FindingStatus.OPEN
    assert record.finding.title == "Loop stops one item early"
    assert "still reported" in record.history[-1][1]
    assert ledger.stall_reason(2) is not None  # not fixed, only reworded: no progress


def test_the_reviewers_own_id_follows_a_finding_across_rounds() -> None:
    ledger = FindingLedger()
    first = Finding.make(Severity.IMPORTANT, "Missing test", file="app.py", ref="missing-test")
    review(ledger, 1, first)
    reworded = Finding.make(
        Severity.IMPORTANT, "No test for empty input", file="app.py", ref="missing-test"
    )
    review(ledger, 2, reworded, scope={"app.py"})
    assert [r.finding.id for r in ledger.records] == [first.id]


def test_a_ref_never_joins_findings_of_another_stage() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG, stage="spec")
    other = Finding.make(Severity.IMPORTANT, "Other", file="app.py", ref=BUG.id)
    review(ledger, 1, other, stage="quality")
    assert {r.finding.id for r in ledger.records} == {BUG.id, other.id}


def test_a_resolved_finding_named_again_by_ref_came_back() -> None:
    ledger = FindingLedger()
    review(ledger, 1, BUG, CRASH)
    review(ledger, 2, CRASH, scope={"app.py"})
    back = Finding.make(Severity.IMPORTANT, "Reworded off-by-one", file="app.py", ref=BUG.id)
    review(ledger, 3, back, CRASH, scope={"app.py"})
    assert status(ledger)[BUG.id] is FindingStatus.OPEN
    assert "came back" in (ledger.stall_reason(3) or "")
