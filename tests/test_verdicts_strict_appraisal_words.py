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
