"""Traditional Chinese reads as Simplified (`mergegate.verdicts._hanzi`, through `norm`): a
condition or a "no" written in Traditional Chinese is read like its Simplified twin, and the
vocabularies are written in the folded form so that the fold never hides one of their words."""

from __future__ import annotations

from pathlib import Path

import pytest

import mergegate.verdicts as verdicts_package
from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._hanzi import _SIMPLIFIED, _TRADITIONAL, fold_hanzi
from mergegate.verdicts._text import norm

PACKAGE = Path(verdicts_package.__file__).parent

# Simplified documents of each decision, to be written in Traditional by OpenCC.
SIMPLIFIED_DOCUMENTS = [
    "**结论：** LGTM\n\n- 状态：LGTM（P1修完后可合并，nit可选）\n",
    "## 结论\n\n不通过：存在阻塞性问题，必须修复。\n",
    "## 审查结论\n\n**通过**\n\n没有发现问题。\n",
    "结论：通过，但需要先修复测试后再合并。\n",
    "**状态：** 批准\n\n撤回批准：测试失败。\n",
]


def test_the_table_folds_each_character_once() -> None:
    assert len(_TRADITIONAL) == len(_SIMPLIFIED) == len(set(_TRADITIONAL))
    assert fold_hanzi(_SIMPLIFIED) == _SIMPLIFIED  # no chain: folding twice changes nothing


def test_no_vocabulary_character_is_one_the_fold_changes() -> None:
    """The vocabularies are matched against folded text: a Traditional character in one of
    them could never match (write `后`, not `後`)."""
    offenders = {
        f"{path.relative_to(PACKAGE)}: {ch}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "_hanzi.py"
        for ch in set(path.read_text(encoding="utf-8")) & set(_TRADITIONAL)
    }
    assert not offenders, sorted(offenders)


def test_norm_reads_traditional_as_simplified() -> None:
    assert norm("狀態：LGTM（P1修完後可合併）") == "状态:lgtm(p1修完后可合并)"  # NFKC too


def test_the_table_is_opencc_s() -> None:
    opencc = pytest.importorskip("opencc")
    source = Path(opencc.__file__).parent / "dictionary" / "TSCharacters.txt"
    pairs = {}
    for line in source.read_text(encoding="utf-8").splitlines():
        traditional, simplified = line.split("\t")
        first = simplified.split()[0]
        if len(traditional) == 1 and len(first) == 1 and traditional != first:
            pairs[traditional] = first
    resolved = {}
    for traditional, first in pairs.items():
        end = first
        while end in pairs:
            end = pairs[end]
        resolved[traditional] = end
    assert dict(zip(_TRADITIONAL, _SIMPLIFIED, strict=True)) == resolved


@pytest.mark.parametrize("document", SIMPLIFIED_DOCUMENTS)
def test_a_traditional_document_decides_like_its_simplified_twin(document: str) -> None:
    opencc = pytest.importorskip("opencc")
    traditional = opencc.OpenCC("s2t").convert(document)
    assert traditional != document
    simplified_verdict = parse_verdict(document)
    assert parse_verdict(traditional).decision is simplified_verdict.decision


def test_a_conditional_lgtm_in_traditional_chinese_is_not_approved() -> None:
    text = "**LGTM with nits.** 無P0。可合併。\n\n## out\n\n- 狀態：LGTM（P1修完後可合併）\n"
    assert parse_verdict(text).decision is not Decision.APPROVE
