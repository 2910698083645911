"""The strict reading's appraisal (issue 23): what it refused in genuine reviews of the
development sets — a timestamp beside the answer, 'complete' in the other read languages, a
denial of a critical problem in Spanish, French or German. Each still approves strictly; the
same lines with a defect still do not."""

from __future__ import annotations

import pytest

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nRead the change.\n\n"


@pytest.mark.parametrize(
    "tail",
    [
        "**Verdict:** APPROVED — 2026-03-04T10:00:00Z\n",
        "**Verdict:** APPROVED\n\nLa implementación es completa.\n",
        "**Verdict:** APPROVED\n\nL'implémentation est complète.\n",
        "**Verdict:** APPROVED\n\nDie Umsetzung ist vollständig.\n",
        "**Verdict:** APPROVED\n\nSin fallos críticos detectados.\n",
        "**Verdict:** APPROVED\n\nAucun problème critique.\n",
    ],
)
def test_genuine_appraisals_approve_strictly(tail: str) -> None:
    assert parse_verdict(_HEAD + tail, strict=True).approved


@pytest.mark.parametrize(
    "tail",
    [
        "**Verdict:** APPROVED — 2026-03-04T10:00:00Z, the export drops the header\n",
        "**Verdict:** APPROVED\n\nLa implementación es completa, pero el caché ignora el tenant.\n",
        "**Verdict:** APPROVED\n\nSin fallos críticos; el token aparece en el registro.\n",
        "**Verdict:** APPROVED\n\nLe code est propre, mais le cache ignore le tenant.\n",
        "**Verdict:** APPROVED\n\nDer Code ist sauber, aber der Cache ignoriert den Mandanten.\n",
        "**Verdict:** APPROVED\n\n代码很好，但是缓存忽略了租户。\n",
    ],
)
def test_the_same_lines_with_a_defect_do_not(tail: str) -> None:
    assert not parse_verdict(_HEAD + tail, strict=True).approved


# The other read languages' adjectives judge the change where the English ones do: as a
# predicate or opening the clause. Elsewhere they name something else — a token logged in
# clear text, a clock assumed correct — and the line states a fact the verdict did not weigh.
@pytest.mark.parametrize(
    "line",
    [
        "Die Änderung ist sauber und gut getestet.",
        "Le code est très propre.",
        "Todo correcto.",
        "Buen trabajo, la migración es clara.",
        "Il codice è molto chiaro.",
        "O código está correto.",
        "The rollout plan is well-documented.",
        "The API surface is well-designed.",
        "Well-tested change.",
    ],
)
def test_an_adjective_as_a_predicate_or_opening_appraises(line: str) -> None:
    assert parse_verdict(f"{_HEAD}**Verdict:** APPROVED\n\n{line}\n", strict=True).approved


@pytest.mark.parametrize(
    "line",
    [
        "El token de sesión se registra en claro en el log de depuración.",
        "Le jeton est écrit en clair dans le journal.",
        "Der Import setzt eine korrekt gestellte Uhr voraus.",
        "Il servizio scrive la password in chiaro nei log.",
        "The lock is only correct under load.",
        "The scheduler assumes a correct clock on every node.",
        "The cache has a well-known race between refresh and read.",
    ],
)
def test_the_same_adjective_elsewhere_is_no_appraisal(line: str) -> None:
    assert not parse_verdict(f"{_HEAD}**Verdict:** APPROVED\n\n{line}\n", strict=True).approved


# A verb of a check's outcome in its bare form after a determiner is a noun ('every pass of
# the scheduler'): it names a thing and reports no check.
@pytest.mark.parametrize(
    ("line", "approves"),
    [
        ("Every pass of the scheduler drops one job.", False),
        ("The match on the prefix shadows the health route.", False),
        ("A pass over the docs found no issues.", True),
        ("Each check passes.", True),
        ("All tests pass.", True),
    ],
)
def test_a_bare_verb_after_a_determiner_is_a_noun(line: str, approves: bool) -> None:
    doc = f"{_HEAD}**Verdict:** APPROVED\n\n{line}\n"
    assert parse_verdict(doc, strict=True).approved is approves


# A label whose value holds words that are not a name's is prose to the strict reading: the
# value must appraise the change. Names, dates and counts are data; GSD's own
# `Re-verification` field holds the template's wording.
@pytest.mark.parametrize(
    ("line", "approves"),
    [
        ("Scope: docs only", False),
        ("Confidence: low", False),
        ("Ready: no", False),
        ("Rollback: impossible", False),
        ("Reviewer: Claude (code-reviewer)", True),
        ("Date: 2026-03-04", True),
        ("Files reviewed: 14", True),
        ("**Re-verification:** No — initial verification", True),
        ("Confidence: high, tests pass", True),
    ],
)
def test_a_worded_label_value_must_appraise(line: str, approves: bool) -> None:
    doc = f"{_HEAD}**Verdict:** APPROVED\n\n{line}\n"
    assert parse_verdict(doc, strict=True).approved is approves
