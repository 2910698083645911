"""A label alone on its line that names the block below it as evidence of a run ('Command:',
'**Evidence:**', 'Output:', 'Test results:') introduces that block; it is no finding after
the approval, even under a heading that names what was checked for ('Regression check',
'Error handling sweep') (issue 23, class 1). The block is still read: a result that did not
pass (a failure, an error, a non-zero exit in the fenced output, an item that is no pass)
keeps the document from approving."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

HEAD = """# Review: cache eviction

## Verdict

APPROVED

## Regression check

"""

PASSING = [
    "Command:\n\n```\nmake test\n```\n\nOutput:\n\n```\n212 passed, 0 failed in 9.4s\n```\n",
    "**Evidence:**\n\n- eviction unit tests: pass\n- soak test (2h): passed\n- mypy ✅\n",
    "Commands run:\n\n```\ngo test ./... -race\n```\n\nResult:\n\n```\nok  cache 3.1s\n```\n",
]


@pytest.mark.parametrize("block", PASSING)
def test_an_evidence_label_introduces_its_block(block: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(HEAD + block, strict=strict)
        assert verdict.decision is A, (strict, verdict.reasons)


@pytest.mark.parametrize(
    "block",
    [
        "Output:\n\n```\n3 failed, 209 passed in 9.4s\n```\n",
        "Result:\n\n```\n--- FAIL: TestEvictLRU (0.02s)\n```\n",
        "Output:\n\n```\nmake: *** [test] exit status 2\n```\n",
        "Result:\n\n```\npanic: runtime error: index out of range\n```\n",
        "**Evidence:**\n\n- eviction unit tests: pass\n- the soak test leaks 40 MB an hour\n",
        "**Evidence:**\n\n- eviction unit tests: pass\n- soak test: not run\n",
        "Evidence:\n\n- mypy ✅\n\nThe LRU list is never trimmed under memory pressure.\n",
    ],
)
def test_a_result_that_did_not_pass_still_refuses(block: str) -> None:
    for strict in (False, True):
        verdict = parse_verdict(HEAD + block, strict=strict)
        assert verdict.decision is not A, (strict, verdict.reasons)


def test_a_label_that_is_no_evidence_label_is_still_a_finding() -> None:
    verdict = parse_verdict(HEAD + "Leak on shutdown:\n\n```\nheap grows 40 MB/h\n```\n")
    assert verdict.decision is not A, verdict.reasons
