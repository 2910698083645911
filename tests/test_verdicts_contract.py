"""Issue 10 (5): one verdict contract. The trailer model lives once, in `mergegate.verdicts`;
the `review-verdict` handoff schema, the local model's grammar and the reviewer templates are
derived from it, and `parse` and `handoff check` accept and refuse the same trailers."""

from __future__ import annotations

import json
import re
from typing import get_args

import pytest

from mergegate.agents._formats import verdict_grammar
from mergegate.decisions import Decision
from mergegate.handoff import ErrorKind, extract
from mergegate.review.prompts import load_template
from mergegate.verdicts import (
    TRAILER_VERDICTS,
    ReviewVerdict,
    Severity,
    TrailerFinding,
    parse_verdict,
    read_verdict_object,
    trailer_example,
    verdict_object_example,
)

RID = "mg-1a2b"


def _trailer(body: str) -> str:
    return f"Review.\n\n```json\n{body}\n```\n\nReady to merge? Yes\n"


GOOD = '{"review_id": "mg-1a2b", "verdict": "approve", "findings": []}'
BAD = {
    "duplicate verdict": '{"review_id": "mg-1a2b", "verdict": "reject", "verdict": "approve", '
    '"findings": []}',
    "duplicate review_id": '{"review_id": "x", "review_id": "mg-1a2b", "verdict": "approve"}',
    "unknown key": '{"review_id": "mg-1a2b", "verdict": "approve", "findings": [], "ok": true}',
    "unknown finding key": '{"review_id": "mg-1a2b", "verdict": "approve", "findings": '
    '[{"severity": "minor", "title": "t", "url": "x"}]}',
    "missing review_id": '{"verdict": "approve", "findings": []}',
    "line 0": '{"review_id": "mg-1a2b", "verdict": "approve", "findings": '
    '[{"severity": "minor", "title": "t", "line": 0}]}',
    "line as string": '{"review_id": "mg-1a2b", "verdict": "approve", "findings": '
    '[{"severity": "minor", "title": "t", "line": "3"}]}',
    "severity outside the scale": '{"review_id": "mg-1a2b", "verdict": "approve", "findings": '
    '[{"severity": "high", "title": "t"}]}',
    "verdict outside the list": '{"review_id": "mg-1a2b", "verdict": "APPROVE"}',
    "NaN": '{"review_id": "mg-1a2b", "verdict": "approve", "findings": [], "x": NaN}',
    "overflow": '{"review_id": "mg-1a2b", "verdict": "approve", "findings": [], "x": 1e999}',
}


def test_a_good_trailer_is_good_for_both() -> None:
    assert parse_verdict(_trailer(GOOD), review_id=RID).decision is Decision.APPROVE
    assert extract(_trailer(GOOD), "review-verdict").ok


@pytest.mark.parametrize("name", sorted(BAD))
def test_parse_and_handoff_check_refuse_the_same_trailers(name: str) -> None:
    text = _trailer(BAD[name])
    verdict = parse_verdict(text, review_id=RID)
    assert verdict.decision is Decision.MALFORMED, verdict.reasons
    assert parse_verdict(text).decision is not Decision.APPROVE
    result = extract(text, "review-verdict")
    assert not result.ok
    assert result.error is not None
    assert result.error.type in (ErrorKind.DUPLICATE_KEY, ErrorKind.SCHEMA, ErrorKind.JSON_SYNTAX)


def test_one_severity_type() -> None:
    field = TrailerFinding.model_fields["severity"]
    assert field.annotation is Severity
    assert [s.value for s in Severity] == ["critical", "important", "minor"]
    # The code-review-result scale is an input vocabulary mapped onto it.
    from mergegate.handoff import CodeReviewIssue

    levels = {
        word: CodeReviewIssue(severity=word, description="d").level
        for word in ("critical", "high", "medium", "low")
    }
    assert levels == {
        "critical": Severity.CRITICAL,
        "high": Severity.IMPORTANT,
        "medium": Severity.IMPORTANT,
        "low": Severity.MINOR,
    }


def test_the_grammar_is_derived_from_the_model() -> None:
    grammar = verdict_grammar(RID, max_findings=3)
    item = next(line for line in grammar.splitlines() if line.startswith("item "))
    fields = re.findall(r'\\"(\w+)\\": ', item)
    model_fields = [f for f in TrailerFinding.model_fields if f in fields]
    assert fields == model_fields  # the model's order
    required = [n for n, f in TrailerFinding.model_fields.items() if f.is_required()]
    assert set(required) <= set(fields)
    assert '"line\\": " [1-9] [0-9]{0,4}' in item  # 1-based, as the model says
    sev = next(line for line in grammar.splitlines() if line.startswith("sev "))
    assert re.findall(r'"(\w+)"', sev) == [s.value for s in Severity]
    verdicts = get_args(ReviewVerdict.model_fields["verdict"].annotation)
    assert tuple(TRAILER_VERDICTS) == verdicts
    for word in verdicts:
        assert f'\\"verdict\\": \\"{word}\\"' in grammar


@pytest.mark.parametrize("line", [1, 7, 99999])
def test_what_the_grammar_writes_is_a_valid_trailer(line: int) -> None:
    # The grammar's item shape, filled in: it must pass the one validator.
    item = {"id": "F1", "severity": "minor", "title": "t", "file": "a.py", "line": line}
    body = {"review_id": RID, "verdict": "approve", "findings": [item]}
    ReviewVerdict.model_validate_json(json.dumps(body))
    assert extract(_trailer(json.dumps(body)), "review-verdict").ok


@pytest.mark.parametrize("name", ["spec-review", "quality-review"])
def test_the_templates_show_the_verdict_object_built_from_the_model(name: str) -> None:
    """Issue 22: a prompted reviewer is shown the verdict object, not the old trailer."""
    prompt = load_template(name).render(
        review_id=RID,
        scope="T1",
        spec="S",
        base_sha="b",
        head_sha="h",
        changes="C",
        open_findings="none",
        conventions="none",
        blocking_rule="no condition",
    )
    example = verdict_object_example(RID, "T1")
    assert example in prompt.text
    assert trailer_example(RID) not in prompt.text
    assert "Ready to merge?" not in prompt.text
    assert read_verdict_object(example).review_id == RID


def test_the_old_trailer_example_still_follows_its_model() -> None:
    example = json.loads(trailer_example(RID))
    assert list(example) == list(ReviewVerdict.model_fields)
    assert list(example["findings"][0]) == list(TrailerFinding.model_fields)
    assert example["findings"][0]["line"] is None  # never 0: the model refuses it
