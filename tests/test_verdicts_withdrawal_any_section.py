"""A request not to merge under an advisory heading (issue 23): the Minor section of a
superpowers review, or any section that grades its items as non-blocking, held 'do not merge
yet' in another language as a minor finding, and the closing 'Ready to merge? Yes' approved.
A withdrawal asks not to merge whatever heading it stands under."""

from __future__ import annotations

import pytest

from mergegate.verdicts import parse_verdict


def _review(minor_paragraph: str) -> str:
    return (
        "### Strengths\n\n- Focused diff.\n\n### Issues\n\n#### Critical (Must Fix)\n\nNone.\n\n"
        "#### Important (Should Fix)\n\nNone.\n\n#### Minor (Nice to Have)\n\n"
        f"- Inline the helper in `jobs.py`.\n\n{minor_paragraph}\n\n"
        "### Assessment\n\n**Ready to merge?** Yes\n\n**Reasoning:** Small and tested.\n"
    )


@pytest.mark.parametrize(
    "paragraph",
    [
        "Aviso: no fusionar todavía, falta la migración de índices.",
        "Hinweis: bitte vorerst nicht mergen, der Cronjob läuft doppelt.",
        "À noter : ne pas merger avant la revue de la DBA.",
        "One more thing: please do not merge until the flag default flips.",
        "备注：暂不合并，等待安全评审。",
    ],
)
def test_a_request_not_to_merge_in_a_minor_section_is_not_an_approval(paragraph: str) -> None:
    assert not parse_verdict(_review(paragraph)).approved


def test_a_minor_section_that_only_mentions_the_merge_still_approves() -> None:
    assert parse_verdict(_review("A merge queue would help later; not needed here.")).approved
