"""What may follow an approval (`mergegate.verdicts._after`): after the approving verdict
that closes a review, every visible line must be recognised as something that cannot change
the decision. Each class below was approved by the parser before this rule; each has genuine
twins — the same place, text that is recognised — that still approve."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE
BODY = (
    "## Summary\n\nThe change caps HTTP retries at five and adds tests for the cap.\n\n"
    "## Strengths\n\n- The cap is a constant with a clear name.\n\n"
    "### Critical\n\nNone.\n\n### Important\n\nNone.\n\n"
    "### Minor\n\n- The log line could include the attempt number.\n\n"
)
CLOSING = "**Ready to merge?** Yes\n\n"


def _after(text: str) -> str:
    return BODY + CLOSING + text + "\n"


# A heading after the closing verdict that names no part of a review: its section is text
# the verdict did not weigh (an alternative, a change list, a finding, a sentence).
HEADINGS = [
    "### Changes I still want\n\nDrop the second retry loop.",
    "### Alternative B (the one I prefer)\n\nLand this behind a flag.",
    "### F2. Timeout handling\n\nThe cap ignores the overall deadline.",
    "### Proposal\n\nSplit the cap into connect and read parts.",
    "Land this behind the flag first\n---------------------------------",
    "## What has to happen next\n\nThe flag stays off in production.",
]
HEADING_TWINS = [
    "### Notes\n\nThe cap matches what the other clients use.",
    "### Follow-ups\n\n- Expose the cap in the config file later.",
    "### Testing\n\nRan the whole suite locally; 212 passed.",
    "### `http/client.py`\n\nThe new constant is documented.",
    "## Verification\n\nThe new tests fail without the change.",
    "### Next steps\n\nA later PR can make the cap configurable.",
    "## 下一步建议\n\n下一个任务可以复用这个上限。",
    "### 改进建议（非阻塞）\n\n可以把上限放进配置文件。",
]

# A sentence right after the closing verdict that tells the author to do something, or a
# fragment that conditions it, instead of giving a reason.
INSTRUCTIONS = [
    "Squash the commits and bump the version, then land it.",
    "Get a sign-off from the platform team on the token scope.",
    "Calls for a second look by the DBA: wants a review of the index.",
    "_Only once the flag is off by default._",
    "**Only for the staging rollout.**",
    "Take the migration out of this PR.",
    # a label whose value is such a sentence
    "Note: deploying the change resets every API key in the store.",
]
INSTRUCTION_TWINS = [
    "The retry logic is sound and the tests cover the edge cases.",
    "All requirements met.",
    "I had doubts about the backoff in round 1, but the new test settles them.",
    "Clean, focused change with no behavioural surprises.",
    "*— Priya, platform team*",
    "Ship it.",
    "Note: the cap matches the default of the other HTTP clients.",
    "**Date:** 2026-05-01",
]

# The same, on the verdict's own line after its answer.
BESIDE = [
    "**Ready to merge?** Yes. Bump the version in `pyproject.toml`.",
    "**Verdict:** APPROVE. Squash the three fixup commits, then land it.",
    "**Verdict:** APPROVE — merge only the parser half.",
    # a reference mark points to a note below that qualifies the answer
    "**Verdict:** APPROVED†\n\n† Once the load test at 2× traffic has run.",
    "**Ready to merge?** Yes‡\n\n‡ The release branch is frozen.",
]
BESIDE_TWINS = [
    "**Ready to merge?** Yes. The cap is tested.",
    "**Verdict:** APPROVE. Ship it.",
    "**Verdict:** APPROVE — merge the whole change.",
]

# A clause after the closing verdict that answers with another verdict: the reviewer's last
# word is not the yes.
CONTRARY = [
    "So, merge or not? No.",
    "Which is it, approve or reject? Reject, because the cap ignores the deadline.",
    # a verdict word negated by its prefix: the vocabulary reads only the stem
    "Update after rebasing on main:\n\nUnmergeable.",
    "On reflection this is unshippable as it stands.",
    "The migration is non-mergeable today.",
]
CONTRARY_TWINS = [
    "No code changes are required before merge.",
    "Nothing blocks the merge.",
    "The emergency fallback path is covered too.",
    "Each merged branch is deleted afterwards.",
]

# A list item after the closing verdict that carries a location or a severity tag is a
# finding the verdict did not weigh.
FINDING_ITEMS = [
    "- **Sev-2** `http/client.py:88`: the cap is read before the config loads.",
    "- `billing/charge.py:57` rounds the amount twice.",
    "- [P1] the retry counter is shared between requests.",
]
FINDING_ITEM_TWINS = [
    "- Thanks for the thorough tests.",
    "- Reviewed with the team on Tuesday.",
]

# A sentence in a language mergegate has no vocabulary for: a script it does not read, or
# Latin letters that none of its languages writes. It cannot be weighed, so it is refused.
UNREADABLE = [
    "Birleştirmeden önce göç geri alınmalı.",
    "Cần hoàn tác việc di chuyển dữ liệu trước khi hợp nhất.",
    "Najpierw trzeba cofnąć migrację.",
    "Πρώτα πρέπει να αναιρεθεί η μετάβαση.",
    "יש לבטל את ההגירה לפני המיזוג.",
    "ต้องย้อนการย้ายข้อมูลก่อนรวม",
]
READABLE_TWINS = [
    "Buen trabajo: la lógica está clara y las pruebas pasan.",
    "Très bon travail, les tests sont complets.",
    "Alle Tests sind grün, gute Arbeit.",
    "测试全部通过。",
    "Все тесты проходят.",
    "*— José Müller*",
    # a letter standing alone is a symbol, not a language: 'λ', 'ℹ', 'π'
    "The factor λ could be a named constant; ℹ marks the info items.",
]


@pytest.mark.parametrize("text", HEADINGS)
def test_a_heading_that_names_no_review_part_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", HEADING_TWINS)
def test_a_review_part_heading_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("text", INSTRUCTIONS)
def test_an_instruction_or_fragment_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", INSTRUCTION_TWINS)
def test_a_reason_or_signature_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("text", BESIDE)
def test_an_instruction_beside_the_answer_is_refused(text: str) -> None:
    verdict = parse_verdict(BODY + text + "\n")
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", BESIDE_TWINS)
def test_a_reason_beside_the_answer_still_approves(text: str) -> None:
    verdict = parse_verdict(BODY + text + "\n")
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("text", CONTRARY)
def test_another_verdict_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", CONTRARY_TWINS)
def test_a_negated_verdict_word_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("text", FINDING_ITEMS)
def test_a_located_or_tagged_item_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", FINDING_ITEM_TWINS)
def test_a_plain_item_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("text", UNREADABLE)
def test_a_sentence_in_an_unread_language_after_the_approval_is_refused(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is Decision.MALFORMED, verdict.reasons


@pytest.mark.parametrize("text", UNREADABLE)
def test_an_unread_language_beside_the_answer_is_refused(text: str) -> None:
    verdict = parse_verdict(BODY + "**Ready to merge?** Yes, " + text + "\n")
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("text", READABLE_TWINS)
def test_a_sentence_in_a_read_language_after_the_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(_after(text))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("text", UNREADABLE)
def test_an_unread_language_above_the_closing_approval_is_refused(text: str) -> None:
    # The review the closing verdict sums up was not weighed: its body nobody here reads.
    verdict = parse_verdict(f"## Review\n\n{text}\n\n" + CLOSING)
    assert verdict.decision is Decision.MALFORMED, verdict.reasons


@pytest.mark.parametrize("text", READABLE_TWINS)
def test_a_read_language_above_the_closing_approval_still_approves(text: str) -> None:
    verdict = parse_verdict(f"## Review\n\n{text}\n\n" + CLOSING)
    assert verdict.decision is A, verdict.reasons


def test_the_body_after_an_opening_verdict_is_the_review_it_sums_up() -> None:
    """A verdict stated first is followed by the review itself: its topic headings are the
    body, not text the verdict did not weigh."""
    text = (
        "# Review of the retry cap\n\n**Verdict:** APPROVE\n\n"
        "## Design\n\nThe cap is checked before each attempt.\n\n"
        "## Performance\n\nNo extra allocation per request.\n"
    )
    assert parse_verdict(text).decision is A


# A verdict that opens the document: its own section (up to the first heading) is read like
# the lines after a closing verdict; the body below the first heading is the review.
OPENINGS = [
    "## Verdict\n\nApproved.\n\n{}\n",
    "LGTM.\n\n{}\n",
    "# Review\n\n**Verdict:** APPROVE\n\n{}\n\n## Design\n\nThe cap is checked first.\n",
]


@pytest.mark.parametrize("opening", OPENINGS)
@pytest.mark.parametrize("text", INSTRUCTIONS + FINDING_ITEMS)
def test_an_instruction_or_finding_under_an_opening_verdict_is_refused(
    opening: str, text: str
) -> None:
    verdict = parse_verdict(opening.format(text))
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("opening", OPENINGS)
@pytest.mark.parametrize("text", INSTRUCTION_TWINS + FINDING_ITEM_TWINS)
def test_a_reason_under_an_opening_verdict_still_approves(opening: str, text: str) -> None:
    verdict = parse_verdict(opening.format(text))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("text", BESIDE)
def test_an_instruction_beside_an_opening_answer_is_refused(text: str) -> None:
    verdict = parse_verdict("## Verdict\n\n" + text + "\n\n## Design\n\nSmall and clear.\n")
    assert verdict.decision is not A, verdict.reasons
