"""Issue 22 (1, 2): the verdict object, read strictly, and the one approval rule.

The rule is checked over generated objects (hypothesis): no object that breaks any clause is
approved, every object that satisfies all of them is.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.cli import cli
from mergegate.decisions import Decision
from mergegate.verdicts import (
    MalformedObjectError,
    MalformedReason,
    Severity,
    VerdictObject,
    VerdictRequest,
    approves,
    decide_object,
    read_verdict_object,
    verdict_object_example,
    verdict_object_schema,
)

RID = "mg-7f3a9c"
SCOPE = "task-1"
REQUEST = VerdictRequest(RID, SCOPE)


def _finding(severity: str = "minor", **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "f1",
        "severity": severity,
        "title": "a title",
        "file": "a.py",
        "line": 3,
        "detail": "why",
        "suggestion": None,
        "requirement": None,
    }
    return {**base, **over}


def _object(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "review_id": RID,
        "scope": SCOPE,
        "verdict": "approve",
        "conditions": [],
        "findings": [],
        "summary": "looks right",
        "confidence": 0.8,
    }
    return {**base, **over}


GOOD = json.dumps(_object())


def _reason(text: str | bytes) -> MalformedReason:
    with pytest.raises(MalformedObjectError) as caught:
        read_verdict_object(text)
    return caught.value.reason


# ------------------------------------------------------------------------ strict reading


def test_a_valid_object_reads_from_text_and_bytes() -> None:
    assert read_verdict_object(GOOD).verdict == "approve"
    assert read_verdict_object(GOOD.encode()).scope == SCOPE
    assert read_verdict_object(f"\n  {GOOD}\n\n").review_id == RID


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", MalformedReason.EMPTY),
        ("  \n\t", MalformedReason.EMPTY),
        (f"Here is my verdict: {GOOD}", MalformedReason.TEXT_BESIDE),
        (f"{GOOD}\nLooks good, but fix the tests first.", MalformedReason.TEXT_BESIDE),
        (f"```json\n{GOOD}\n```", MalformedReason.TEXT_BESIDE),
        (f"```json\n{GOOD}\n```\nThanks!", MalformedReason.TEXT_BESIDE),
        (f"{GOOD}\n```", MalformedReason.TEXT_BESIDE),
        (f"{GOOD}{GOOD}", MalformedReason.SECOND_OBJECT),
        (f"{GOOD}\n\n{GOOD}", MalformedReason.SECOND_OBJECT),
        (f"{GOOD} []", MalformedReason.SECOND_OBJECT),
        (f"[{GOOD}]", MalformedReason.NOT_AN_OBJECT),
        ('"approve"', MalformedReason.NOT_AN_OBJECT),
        ("true", MalformedReason.NOT_AN_OBJECT),
        (GOOD[:-1], MalformedReason.TRUNCATED),
        (GOOD[:40], MalformedReason.TRUNCATED),
        ('{"review_id": }', MalformedReason.SYNTAX),
        (GOOD.replace('"confidence": 0.8', '"confidence": NaN'), MalformedReason.NOT_FINITE),
        (GOOD.replace('"confidence": 0.8', '"confidence": Infinity'), MalformedReason.NOT_FINITE),
        (GOOD.replace('"confidence": 0.8', '"confidence": 1e999'), MalformedReason.NOT_FINITE),
        (
            GOOD.replace('"verdict": "approve"', '"verdict": "reject", "verdict": "approve"'),
            MalformedReason.DUPLICATE_KEY,
        ),
        (
            json.dumps(_object(findings=[_finding()])).replace(
                '"severity": "minor"', '"severity": "critical", "severity": "minor"'
            ),
            MalformedReason.DUPLICATE_KEY,
        ),
        ('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}", MalformedReason.TOO_DEEP),
    ],
)
def test_anything_but_one_object_alone_is_malformed(text: str, reason: MalformedReason) -> None:
    assert _reason(text) is reason
    assert decide_object(text, REQUEST).decision is Decision.MALFORMED


@pytest.mark.parametrize(
    "obj",
    [
        _object(extra=True),
        _object(findings=[_finding(url="x")]),
        {k: v for k, v in _object().items() if k != "conditions"},
        {k: v for k, v in _object().items() if k != "scope"},
        {k: v for k, v in _object().items() if k != "summary"},
        {k: v for k, v in _object().items() if k != "confidence"},
        _object(findings=[{k: v for k, v in _finding().items() if k != "suggestion"}]),
        _object(verdict="APPROVE"),
        _object(verdict="approved"),
        _object(verdict=True),
        _object(conditions="none"),
        _object(conditions=[1]),
        _object(conditions=None),
        _object(confidence="0.9"),
        _object(confidence=True),
        _object(confidence=1.5),
        _object(confidence=-0.1),
        _object(summary="two\nlines"),
        _object(summary=""),
        _object(review_id=""),
        _object(review_id=7),
        _object(scope=""),
        _object(findings=[_finding(severity="high")]),
        _object(findings=[_finding(line=0)]),
        _object(findings=[_finding(line="3")]),
        _object(findings=[_finding(line=3.0)]),
        _object(findings=[_finding(title="")]),
        _object(findings={}),
    ],
)
def test_wrong_types_unknown_and_missing_keys_are_malformed(obj: dict[str, Any]) -> None:
    assert _reason(json.dumps(obj)) is MalformedReason.SCHEMA


def test_bytes_that_are_not_utf8_or_too_large_are_malformed() -> None:
    assert _reason(b"\xff" + GOOD.encode()) is MalformedReason.NOT_UTF8
    assert _reason(GOOD + " " * 1_000_001) is MalformedReason.TOO_LARGE


def test_a_malformed_reason_says_what_to_fix() -> None:
    with pytest.raises(MalformedObjectError) as caught:
        read_verdict_object(json.dumps(_object(extra=1)))
    assert "extra: unknown key" in caught.value.detail


def test_the_example_in_prompts_is_a_valid_object() -> None:
    obj = read_verdict_object(verdict_object_example(RID, SCOPE))
    assert approves(obj, REQUEST)


# ------------------------------------------------------------------------ the rule


def test_only_an_approving_object_for_this_review_approves() -> None:
    assert decide_object(GOOD, REQUEST).decision is Decision.APPROVE
    minor = json.dumps(_object(findings=[_finding("minor")]))
    assert decide_object(minor, REQUEST).decision is Decision.APPROVE


@pytest.mark.parametrize(
    ("obj", "decision"),
    [
        (_object(review_id="mg-000000"), Decision.MALFORMED),
        (_object(scope="task-2"), Decision.MALFORMED),
        (_object(verdict="reject"), Decision.REJECT),
        (_object(verdict="request_changes"), Decision.FIXES),
        (_object(conditions=["after #512 lands"]), Decision.FIXES),
        (_object(conditions=[""]), Decision.FIXES),
        (_object(findings=[_finding("important")]), Decision.FIXES),
        (_object(findings=[_finding("minor"), _finding("critical", id="f2")]), Decision.FIXES),
    ],
)
def test_each_clause_refuses(obj: dict[str, Any], decision: Decision) -> None:
    assert decide_object(json.dumps(obj), REQUEST).decision is decision


def test_the_blocking_severity_comes_from_the_request() -> None:
    obj = read_verdict_object(json.dumps(_object(findings=[_finding("minor")])))
    assert approves(obj, REQUEST)
    assert not approves(obj, VerdictRequest(RID, SCOPE, blocking_from=Severity.MINOR))
    important = read_verdict_object(json.dumps(_object(findings=[_finding("important")])))
    assert approves(important, VerdictRequest(RID, SCOPE, blocking_from=Severity.CRITICAL))


_IDS = st.sampled_from([RID, "mg-000000", "MG-7F3A9C", RID + " ", "x"])
_SCOPES = st.sampled_from([SCOPE, "task-2", "TASK-1", "task-1 ", "phase-1"])
_SEVERITIES = st.sampled_from(list(Severity))
_TEXT = st.text(max_size=12)
_FINDINGS = st.lists(
    st.builds(
        _finding,
        severity=_SEVERITIES.map(str),
        id=st.text(min_size=1, max_size=8),
        title=st.text(min_size=1, max_size=12),
    ),
    max_size=3,
)
_OBJECTS = st.builds(
    _object,
    review_id=_IDS,
    scope=_SCOPES,
    verdict=st.sampled_from(["approve", "request_changes", "reject"]),
    conditions=st.lists(_TEXT, max_size=2),
    findings=_FINDINGS,
    confidence=st.floats(0, 1),
)
_RANK = {Severity.MINOR: 0, Severity.IMPORTANT: 1, Severity.CRITICAL: 2}


def _satisfies_every_clause(obj: dict[str, Any], request: VerdictRequest) -> bool:
    floor = _RANK[request.blocking_from]
    return (
        obj["review_id"] == request.review_id
        and obj["scope"] == request.scope
        and obj["verdict"] == "approve"
        and not obj["conditions"]
        and not any(_RANK[Severity(f["severity"])] >= floor for f in obj["findings"])
    )


@settings(max_examples=400)
@given(_OBJECTS, _SEVERITIES)
def test_approved_iff_every_clause_holds(obj: dict[str, Any], blocking: Severity) -> None:
    request = VerdictRequest(RID, SCOPE, blocking_from=blocking)
    decided = decide_object(json.dumps(obj), request)
    assert decided.approved is _satisfies_every_clause(obj, request)
    assert decided.approved is (decided.decision is Decision.APPROVE)


@settings(max_examples=200)
@given(_OBJECTS, st.sampled_from(["Verdict: ", "```json\n", "\n", "LGTM "]), _TEXT)
def test_no_object_with_text_beside_it_approves(
    obj: dict[str, Any], before: str, after: str
) -> None:
    body = json.dumps(obj)
    for text in (before + body, body + "\n" + after + ".", before + body + after + "!"):
        if text.strip() != body:
            assert decide_object(text, REQUEST).decision is Decision.MALFORMED


# ------------------------------------------------------------------------ the schema


def test_mergegate_schema_verdict_prints_the_model_schema() -> None:
    result = CliRunner().invoke(cli, ["schema", "verdict"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed == verdict_object_schema()
    assert set(printed["required"]) == set(VerdictObject.model_fields)
    assert printed["additionalProperties"] is False
    listed = CliRunner().invoke(cli, ["schema"])
    assert any(line.startswith("verdict ") for line in listed.output.splitlines())
    template = CliRunner().invoke(cli, ["schema", "verdict", "--template"])
    assert read_verdict_object(template.output).verdict == "approve"
