"""Issue 9, Deliver 2: mutation properties over every approving document.

For every document that approves — the shared corpus's approvals and the approving examples
of the tests — hypothesis applies each false-approval class of issue 9 as a mutation and the
result must never be `approve`, with and without a `review_id` (for the latter the document
gets a valid trailer first, so the nonce path approves before it is mutated):

* a retraction, or an Update/Edit section with a contrary verdict, appended — also mid-line;
* a condition in each language the issue lists, on the verdict line or after it;
* a blocking line or section, or a reason/notes/condition field in the verdict's own block;
* the verdict wrapped in an HTML comment, made a title heading or introduced as an example
  without a colon ('Reply with a line such as');
* a trailer key duplicated, an unknown key added, the trailer truncated;
* the input pushed past the window;
* the answer replaced by a non-affirmative one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import _text, parse_verdict
from mergegate.verdicts._decide import _read, _scope_start
from mergegate.verdicts._lines import structure
from mergegate.verdicts._text import bound

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "reviews"
NONCE = "mg-7f3a9c"

OWN_APPROVALS = [
    "**Ready to merge? Yes**\n",
    "### Assessment\n\n**Ready to merge?** Yes\n\n**Reasoning:** all criteria are met.\n",
    "Verdict: APPROVE\n",
    "## Verdict: PASS\n",
    "**Status:** ✅ APPROVED - solid implementation\n",
    "LGTM\n",
    "LGTM with notes. Ship it.\n",
    "gate: PASS\nstatus_reason: all good\n",
    "---\nstatus: clean\nfindings:\n  critical: 0\n---\n# Review\n\nNothing found.\n",
    "---\nstatus: passed\nscore: 8/8\n---\n\n# Verification\n\nAll truths verified.\n",
    "结论：通过\n",
    "判定: 承認\n",
    "판정: 승인\n",
    "Veredicto: aprobado\n",
    "Dictamen: aprobado\n",
    "Verdict: APPROVED with 14 issues (0 blocking)\n",
    "Ready to merge? Yes. I had concerns before, but the second commit resolved all of them.\n",
    "## Round 1\n**Verdict:** BLOCKED\n\n## Round 2\n**Verdict:** PASS — closed.\n",
    "| **Verdict** | **APPROVED** |\n|---|---|\n",
    "### Critical\n(none)\n\n### Minor\n- typo\n\n**Ready to merge? Yes**\n",
]


def _corpus_approvals() -> list[tuple[str, str]]:
    labels = SHARED / "labels.jsonl"
    if not labels.is_file():
        return []
    out = []
    for line in labels.read_text(encoding="utf-8").splitlines():
        item = json.loads(line) if line.strip() else None
        if item and item["expected"] == "approve":
            text = (SHARED / item["file"]).read_text(encoding="utf-8", errors="replace")
            out.append((item["file"], text))
    return out


def _documents() -> list[tuple[str, str]]:
    docs = [(f"own-{i}", text) for i, text in enumerate(OWN_APPROVALS)]
    docs.extend(_corpus_approvals())
    # Only documents the parser approves are the starting points of the property.
    return [(name, text) for name, text in docs if parse_verdict(text).approved]


DOCUMENTS = _documents()


def _with_trailer(text: str) -> str:
    trailer = {"review_id": NONCE, "verdict": "approve", "findings": []}
    return text.rstrip("\n") + "\n\n```json\n" + json.dumps(trailer) + "\n```\n"


def _approving_lines(text: str, *, every_round: bool = False) -> list[int]:
    """0-based line indexes of the approving sites of the deciding round, or of every round
    (the test looks inside on purpose: a mutation of 'the verdict' must reach every
    statement of it, and a statement of a superseded round is not the verdict)."""
    bounded = bound(text)
    doc = structure(bounded.lines, 1, full=bounded.full)
    facts = _read(doc, None, None, [])
    start = 0 if every_round else _scope_start(doc, facts.sites)
    return sorted(
        {
            s.index
            for s in facts.sites
            if s.decision is Decision.APPROVE and (s.frontmatter or s.index >= start)
        }
    )


# --------------------------------------------------------------------------- the mutations

RETRACTIONS = [
    "I retract my approval.",
    "Thanks for the quick turnaround. On second thought, I withdraw my approval.",
    "Please do not merge this yet.",
    "Update: after another look, do not merge.",
    "撤回批准，请勿合并。",
    "Retiro mi aprobación: no fusionar todavía.",
    "Je retire mon approbation.",
    # a later bare 'no' that is not a verdict key line
    "**No, wait — the tests fail.**",
    "Actually, no. The cache key collides.",
    "Nope. The lock is never released.",
    "Nein, doch nicht — die Tests schlagen fehl.",
    "不，等一下——测试没有通过。",
]
CONTRARY = [
    "## Update\n\nAfter another look, Verdict: REJECT",
    "## Edit\n\nAfter re-running the suite my verdict is now REQUEST CHANGES.",
    "**Edit:** on reflection, changes requested.",
    "## Round 2\n\n**Ready to merge?** No",
    "## Update\n\n**Security:** Rejected",
    "Later note — final answer: No.",
]
CONDITIONS = [
    "once CI is green",
    "as soon as the docs land",
    "after the migration is reverted",
    "but rename the flag first",
    "though fix the typo first",
    "pending the security review",
    "before merge the changelog needs an entry",
    "if the tests pass",
    "when the nightly job passes",
    "dès que la CI passe",
    "mais il faut corriger le test",
    "pero falta un test",
    "mas falta um teste",
    "sobald die CI grün ist",
    "aber erst die Tests fixen",
    "nachdem die Tests laufen",
    "（テストが通れば）",
    "但需要补充测试",
    "合并之后再补文档",
    "（修复后）",
]
CONDITION_LINES = [
    "Merge once CI is green.",
    "Ship it as soon as the docs land.",
    "Pending the security review.",
    "Fix the migration first.",
    "À fusionner dès que la CI passe.",
    "Se puede fusionar una vez que pase la CI.",
    "Pode fazer merge desde que os testes passem.",
    "Mergen, sobald die CI grün ist.",
    "修复后再合并。",
    "マージ前に修正してください。",
]
BLOCKING = [
    "### Critical\n- SQL injection in `api.py:12`",
    "Blocking: the migration drops a column.",
    "The race in `cache.py` must be fixed before merge.",
    "### Minor\n- MUST FIX: the token is logged",
    "**Critical:** 2",
    "**Critical (Must Fix):**\n- auth bypass in `login.py`",
    "### 阻塞性问题\n- 数据丢失",
    "The integration tests are failing on this branch.",
]
# A field of the verdict's own block that conditions or blocks it (gate reasons, notes).
REASON_FIELDS = [
    "reason: pending fix of the SQL injection in login.py",
    "status_reason: 'Waiting on a fix for the token refresh race.'",
    "notes: blocked by the flaky integration test",
    "**Notes:** good to go when the feature flag ships.",
    "**Condition:** merge only after the DBA signs off.",
]
# An instruction that introduces an example without a colon.
INTRODUCERS = ["Reply with a line such as", "For example", "e.g.", "Por ejemplo", "例如"]
BAD_ANSWERS = [
    "Not yet",
    "Absolutely not",
    "Not until CI passes",
    "Yes? I am not sure",
    "\n- [ ] Yes\n- [ ] No\n- [x] With fixes",
    "\n- [ ] Yes\n- [x] No",
    "\n- [ ] Yes",
]

Mutation = Callable[[str, st.DataObject], str]


def _append(text: str, addition: str) -> str:
    return text.rstrip("\n") + "\n\n" + addition + "\n"


def retract(text: str, data: st.DataObject) -> str:
    return _append(text, data.draw(st.sampled_from(RETRACTIONS)))


def contradict(text: str, data: st.DataObject) -> str:
    return _append(text, data.draw(st.sampled_from(CONTRARY)))


def condition_on_the_line(text: str, data: st.DataObject) -> str:
    lines = text.split("\n")
    index = data.draw(st.sampled_from(_approving_lines(text)))
    if lines[index].startswith(("```", "{")) or lines[index].rstrip().endswith("|"):
        return condition_after(text, data)  # a trailer or a table row: condition it after
    separator = data.draw(st.sampled_from([", ", " — ", " ", "; "]))
    lines[index] = lines[index].rstrip() + separator + data.draw(st.sampled_from(CONDITIONS))
    return "\n".join(lines)


def condition_after(text: str, data: st.DataObject) -> str:
    return _append(text, data.draw(st.sampled_from(CONDITION_LINES)))


def block(text: str, data: st.DataObject) -> str:
    return _append(text, data.draw(st.sampled_from(BLOCKING)))


def reason_field(text: str, data: st.DataObject) -> str:
    """A reason/notes/condition field in the block of an approving verdict line."""
    lines = text.split("\n")
    index = data.draw(st.sampled_from(_approving_lines(text)))
    if lines[index].startswith(("```", "{", "|")):
        return condition_after(text, data)  # a trailer or a table row
    lines.insert(index + 1, data.draw(st.sampled_from(REASON_FIELDS)))
    return "\n".join(lines)


def introduce(text: str, data: st.DataObject) -> str:
    """Every approving statement becomes an example introduced without a colon."""
    lines = text.split("\n")
    found = _approving_lines(text, every_round=True)
    if lines[0] == "---" and any(i < lines.index("---", 1) for i in found):
        return hide(text, data)  # frontmatter cannot be introduced; hide it instead
    intro = data.draw(st.sampled_from(INTRODUCERS))
    for index in sorted(found, reverse=True):
        lines.insert(index, intro)  # a fenced trailer too: what it introduces is not live
    return "\n".join(lines)


def hide(text: str, data: st.DataObject) -> str:
    """Every approving statement goes into an HTML comment, or becomes a title heading."""
    lines = text.split("\n")
    as_title = data.draw(st.booleans())
    for index in _approving_lines(text, every_round=True):
        if lines[0] == "---" and index < lines.index("---", 1):
            lines[0] = "<!-- ---"  # the frontmatter becomes a comment, closed below
            end = lines.index("---", 1)
            lines[end] = "--- -->"
            continue
        line = lines[index]
        lines[index] = f"# {line} — a checklist" if as_title else f"<!-- {line} -->"
    return "\n".join(lines)


def past_the_window(text: str, data: st.DataObject) -> str:
    """Push the document past the input window (the tests shrink the window to the
    document's size plus `_SLACK`, so this stays fast; the full-size window has its own
    test in test_verdicts_classes)."""
    filler = data.draw(st.sampled_from(["x\n", "Some prose.\n", "```\n"]))
    return filler * (2 * _SLACK // len(filler)) + text


def replace_answer(text: str, data: st.DataObject) -> str:
    lines = text.split("\n")
    index = data.draw(st.sampled_from(_approving_lines(text)))
    bad = data.draw(st.sampled_from(BAD_ANSWERS))
    if lines[0] == "---" and index < lines.index("---", 1):
        key = lines[index].split(":", 1)[0]
        lines[index] = f"{key}: {bad.strip().splitlines()[0].strip('- []x')}"
    elif lines[index].startswith("```"):
        return _append(text, f"**Ready to merge?** {bad}")  # prose no beside the trailer
    else:
        lines[index] = f"**Ready to merge?** {bad}"
    return "\n".join(lines)


PROSE_MUTATIONS: list[Mutation] = [
    retract,
    contradict,
    condition_on_the_line,
    condition_after,
    block,
    reason_field,
    hide,
    introduce,
    past_the_window,
    replace_answer,
]

_TRAILER = re.compile(r"```json\n(\{.*\})\n```", re.DOTALL)


def duplicate_key(text: str, data: st.DataObject) -> str:
    key = data.draw(st.sampled_from(['"verdict": "reject", ', '"review_id": "other", ']))
    return text.replace('{"review_id"', "{" + key + '"review_id"', 1)


def unknown_key(text: str, data: st.DataObject) -> str:
    key = data.draw(st.sampled_from(['"note": "x", ', '"approved": true, ', '"score": 1, ']))
    return text.replace('{"review_id"', "{" + key + '"review_id"', 1)


def truncate_trailer(text: str, data: st.DataObject) -> str:
    match = _TRAILER.search(text)
    assert match is not None
    cut = data.draw(st.integers(min_value=match.start(1) + 1, max_value=match.end(1) - 1))
    return text[:cut]


def overflow(text: str, data: st.DataObject) -> str:
    del data
    return text.replace('"findings": []', '"findings": [], "score": 1e999', 1)


TRAILER_MUTATIONS: list[Mutation] = [duplicate_key, unknown_key, truncate_trailer, overflow]


# --------------------------------------------------------------------------- the properties

_SLACK = 2_000


@contextmanager
def _window(text: str) -> Iterator[None]:
    """A window just larger than `text` and what a mutation appends to it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_text, "MAX_INPUT_CHARS", len(text) + _SLACK)
        yield


_SETTINGS = settings(
    max_examples=int(os.environ.get("MERGEGATE_MUTATION_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_there_are_approving_documents_to_mutate() -> None:
    assert len(DOCUMENTS) >= len(OWN_APPROVALS) - 2
    if SHARED.is_dir():
        assert sum(1 for name, _ in DOCUMENTS if name.startswith("r")) >= 20


@pytest.mark.parametrize(("name", "text"), DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
@_SETTINGS
@given(data=st.data())
def test_no_mutation_of_an_approval_approves(name: str, text: str, data: st.DataObject) -> None:
    mutate = data.draw(st.sampled_from(PROSE_MUTATIONS), label="mutation")
    mutated = mutate(text, data)
    with _window(text):
        verdict = parse_verdict(mutated)
    assert verdict.decision is not Decision.APPROVE, (name, mutate.__name__, verdict.reasons)


@pytest.mark.parametrize(("name", "text"), DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
@_SETTINGS
@given(data=st.data())
def test_no_mutation_approves_with_a_review_id(name: str, text: str, data: st.DataObject) -> None:
    with_trailer = _with_trailer(text)
    if not parse_verdict(with_trailer, review_id=NONCE).approved:
        return  # the prose and a plain trailer do not agree here: nothing to mutate
    mutate = data.draw(st.sampled_from(PROSE_MUTATIONS + TRAILER_MUTATIONS), label="mutation")
    mutated = mutate(with_trailer, data)
    for review_id in (NONCE, None):
        with _window(with_trailer):
            verdict = parse_verdict(mutated, review_id=review_id)
        assert verdict.decision is not Decision.APPROVE, (
            name,
            mutate.__name__,
            review_id,
            verdict.reasons,
        )


def test_most_documents_still_approve_with_their_trailer() -> None:
    """The review_id property is not vacuous: most approvals approve with a trailer."""
    approving = [
        t for _, t in DOCUMENTS if parse_verdict(_with_trailer(t), review_id=NONCE).approved
    ]
    assert len(approving) >= len(DOCUMENTS) * 3 // 4
