"""The gate policy table: which verdicts and findings block a review stage."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.review import GatePolicy, gate_stage
from mergegate.review.policy import cap_architectural, is_advisory
from mergegate.verdicts import Finding, Severity, Verdict, parse_verdict

DEFAULT = GatePolicy()
CRITICAL = Finding.make(Severity.CRITICAL, "SQL injection in the query builder", file="db.py")
IMPORTANT = Finding.make(Severity.IMPORTANT, "Missing test for empty input", file="app.py")
MINOR = Finding.make(Severity.MINOR, "Rename the helper", file="app.py")
ARCH = Finding.make(Severity.CRITICAL, "Architecture: use an event bus instead", file="app.py")


def verdict(decision: Decision, *findings: Finding) -> Verdict:
    return Verdict(decision=decision, findings=findings)


@pytest.mark.parametrize(
    ("decision", "findings", "passes", "blocking"),
    [
        (Decision.APPROVE, (), True, ()),
        (Decision.APPROVE, (MINOR,), True, ()),  # minor never blocks alone
        (Decision.APPROVE, (IMPORTANT,), False, (IMPORTANT,)),
        (Decision.APPROVE, (CRITICAL, MINOR), False, (CRITICAL,)),
        (Decision.FIXES, (), False, ()),  # "With fixes" blocks, even without findings
        (Decision.FIXES, (MINOR,), False, ()),
        (Decision.FIXES, (IMPORTANT,), False, (IMPORTANT,)),
        (Decision.REJECT, (), False, ()),
        (Decision.MALFORMED, (), False, ()),
        (Decision.EMPTY, (), False, ()),
    ],
)
def test_default_policy_table(
    decision: Decision, findings: tuple[Finding, ...], passes: bool, blocking: tuple[Finding, ...]
) -> None:
    gate = gate_stage(verdict(decision, *findings), DEFAULT)
    assert gate.passes is passes
    assert gate.blocking == blocking
    assert gate.reason


def test_minor_blocks_when_configured() -> None:
    policy = GatePolicy(minor_blocks=True)
    gate = gate_stage(verdict(Decision.APPROVE, MINOR), policy)
    assert not gate.passes
    assert gate.blocking == (MINOR,)


def test_blocking_severities_are_configurable() -> None:
    policy = GatePolicy.from_names(
        with_fixes_blocks=True, blocking_severities=["critical"], minor_blocks=False
    )
    assert gate_stage(verdict(Decision.APPROVE, IMPORTANT), policy).passes
    assert not gate_stage(verdict(Decision.APPROVE, CRITICAL), policy).passes


def test_with_fixes_may_be_made_non_blocking_but_findings_still_block() -> None:
    policy = GatePolicy(with_fixes_blocks=False)
    assert gate_stage(verdict(Decision.FIXES, MINOR), policy).passes
    assert not gate_stage(verdict(Decision.FIXES, IMPORTANT), policy).passes
    assert not gate_stage(verdict(Decision.REJECT), policy).passes


def test_a_conditional_approval_without_findings_blocks_under_any_policy() -> None:
    lenient = GatePolicy(with_fixes_blocks=False, blocking_severities=frozenset())
    for text in (
        "Ready to merge? Yes, once CI is green.\n",
        "Verdict: APPROVED WITH MINOR SUGGESTIONS\n",
    ):
        v = parse_verdict(text)
        assert v.decision is Decision.FIXES
        gate = gate_stage(v, lenient)
        assert not gate.passes
        assert "without findings" in gate.reason


def test_unknown_severity_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="severe"):
        GatePolicy.from_names(
            with_fixes_blocks=True, blocking_severities=["severe"], minor_blocks=False
        )


# ---------------------------------------------------------------- architecture (seed 004)
@pytest.mark.parametrize(
    "title",
    ["Architecture: split the module", "architectural: too many layers", "[Architecture] DI"],
)
def test_architectural_findings_are_advisory(title: str) -> None:
    finding = Finding.make(Severity.CRITICAL, title)
    assert is_advisory(finding)
    assert not DEFAULT.blocks(finding)
    assert not GatePolicy(minor_blocks=True).blocks(finding)


def test_architectural_findings_are_capped_at_important_and_never_block() -> None:
    gate = gate_stage(verdict(Decision.APPROVE, ARCH), DEFAULT)
    assert gate.passes
    assert gate.blocking == ()
    (capped,) = gate.findings
    assert capped.severity is Severity.IMPORTANT
    assert capped.id == ARCH.id  # the same finding, so the ledger tracks it across rounds
    assert cap_architectural(IMPORTANT) is IMPORTANT  # others untouched


def test_architecture_in_the_middle_of_a_title_is_not_advisory() -> None:
    finding = Finding.make(Severity.CRITICAL, "Crash: the architecture module fails on import")
    assert not is_advisory(finding)
    assert DEFAULT.blocks(finding)


# ---------------------------------------------------------------- soft wording
@pytest.mark.parametrize(
    "text",
    [
        "**Ready to merge: With fixes**\n\nAPPROVED WITH MINOR SUGGESTIONS.",
        "APPROVED WITH MINOR SUGGESTIONS",
        "Ready to merge? Yes, once the test is added",
        "Ready to merge? Yes, after the rename",
        "Looks mostly good, approved with conditions",
        "I would approve this if the tests passed.",
    ],
)
def test_soft_wording_is_never_approval(text: str) -> None:
    parsed = parse_verdict(text)
    assert parsed.decision is not Decision.APPROVE
    assert not gate_stage(parsed, DEFAULT).passes


# ---------------------------------------------------------------- properties
findings_st = st.builds(
    Finding.make,
    st.sampled_from(list(Severity)),
    st.sampled_from(["Bug", "Architecture: layering", "Nit", "[architecture] split", "Leak"]),
    file=st.sampled_from([None, "a.py"]),
)
policies = st.builds(
    GatePolicy,
    with_fixes_blocks=st.booleans(),
    blocking_severities=st.frozensets(st.sampled_from(list(Severity))),
    minor_blocks=st.booleans(),
)
verdicts = st.builds(
    Verdict,
    decision=st.sampled_from(list(Decision)),
    findings=st.lists(findings_st, max_size=5).map(tuple),
)


@given(verdicts, policies)
def test_only_approve_or_permitted_fixes_ever_pass(v: Verdict, policy: GatePolicy) -> None:
    gate = gate_stage(v, policy)
    if gate.passes:
        assert v.decision is Decision.APPROVE or (
            v.decision is Decision.FIXES and not policy.with_fixes_blocks and v.findings
        )
        assert gate.blocking == ()
        assert not any(policy.blocks(f) for f in gate.findings)
    if v.decision in (Decision.REJECT, Decision.MALFORMED, Decision.EMPTY):
        assert not gate.passes


@given(verdicts, policies.map(lambda p: GatePolicy(True, p.blocking_severities, p.minor_blocks)))
def test_gate_never_passes_a_non_approve_verdict_when_with_fixes_blocks(
    v: Verdict, policy: GatePolicy
) -> None:
    if v.decision is not Decision.APPROVE:
        assert not gate_stage(v, policy).passes


@given(st.lists(findings_st.filter(lambda f: f.severity is Severity.MINOR), max_size=5), policies)
def test_minor_only_approve_always_passes_unless_minor_blocks(
    minors: list[Finding], policy: GatePolicy
) -> None:
    gate = gate_stage(verdict(Decision.APPROVE, *minors), policy)
    assert gate.passes is (not policy.minor_blocks or not minors or all(map(is_advisory, minors)))


@given(verdicts, policies)
def test_architectural_findings_never_block_and_never_stay_critical(
    v: Verdict, policy: GatePolicy
) -> None:
    gate = gate_stage(v, policy)
    assert [f.id for f in gate.findings] == [f.id for f in v.findings]
    for f in gate.findings:
        if is_advisory(f):
            assert f.severity is not Severity.CRITICAL
            assert f not in gate.blocking


# ---------------------------------------------------------------- through the parser
def _trailer_review(*findings: tuple[str, str]) -> Verdict:
    items = [{"severity": sev, "title": title} for sev, title in findings]
    trailer = {"review_id": "mg-1", "verdict": "approve", "findings": items}
    text = f"Ready to merge? Yes\n\n```json\n{json.dumps(trailer)}\n```\n"
    return parse_verdict(text, review_id="mg-1")


def test_an_approval_listing_only_architectural_concerns_stays_an_approval() -> None:
    parsed = _trailer_review(("critical", "Architecture: use an event bus"), ("minor", "Nit"))
    assert parsed.decision is Decision.APPROVE
    gate = gate_stage(parsed, DEFAULT)
    assert gate.passes
    assert {f.severity for f in gate.findings} == {Severity.IMPORTANT, Severity.MINOR}


def test_an_approval_listing_a_real_blocking_finding_is_fixes() -> None:
    parsed = _trailer_review(("critical", "Architecture: layering"), ("important", "No tests"))
    assert parsed.decision is Decision.FIXES
    gate = gate_stage(parsed, DEFAULT)
    assert not gate.passes
    assert [f.title for f in gate.blocking] == ["No tests"]
