"""An empty YAML list with a comment (`must_fix: []  # 无必须修复项`): the list is empty, and
its comment only explains it — unless, under a blocking key (`must_fix`, `blockers`,
`critical`), the comment names an item ('# TODO fix the SQL injection'), or under any key it
names blocking work ('# the auth bypass blocks the merge'). Written from the class (a BMAD gate
whose empty must-fix list carried a negated comment in Chinese was read as a must-fix item),
each hostile comment beside a genuine twin.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

_HEAD = 'schema: 1\nstory: "4.2"\ngate: PASS\nstatus_reason: "All criteria met."\ntop_issues: []\n'


def _gate(line: str) -> str:
    return _HEAD + "recommendations:\n" + line + "\n  future: []\nwaiver: { active: false }\n"


GENUINE = [
    "  must_fix: []  # 无必须修复项",
    "  must_fix: []  # No must-fix items",
    "  must_fix: []  # none",
    "  must_fix: []  # All previously identified issues resolved",
    "  must_fix: []",
    "  blockers: [] # nothing blocks",
    "  monitor: []  # keep an eye on the import time",
]
HOSTILE = [
    "  must_fix: []  # TODO fix the SQL injection in login.py",
    "  must_fix: []  # rotate the leaked key first",
    "  critical: [] # auth bypass in login.py",
    "  monitor: []  # the auth bypass blocks the merge",
    "  must_fix: []  # must fix the token check before merge",
]


@pytest.mark.parametrize("line", GENUINE)
def test_an_empty_list_explained_by_its_comment_approves(line: str) -> None:
    verdict = parse_verdict(_gate(line))
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("line", HOSTILE)
def test_a_comment_that_names_work_keeps_the_pass_from_approving(line: str) -> None:
    verdict = parse_verdict(_gate(line))
    assert verdict.decision is not Decision.APPROVE, verdict.reasons
