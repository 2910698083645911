"""The shared corpus of real reviewer outputs (read at run time, never copied here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mergegate.verdicts import parse_verdict

# Measured on the 53-document corpus: 50/53 (94 %). The floor leaves room for label noise but
# catches a regression of more than two documents.
AGREEMENT_FLOOR = 48


def _load(shared_dir: Path) -> list[tuple[str, str, str]]:
    root = shared_dir / "corpus" / "reviews"
    labels = root / "labels.jsonl"
    if not labels.is_file():
        pytest.skip("corpus/reviews is not in ../shared")
    rows = []
    for line in labels.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            text = (root / item["file"]).read_text(encoding="utf-8", errors="replace")
            rows.append((item["file"], item["expected"], text))
    return rows


def _same(expected: str, got: str) -> bool:
    undecided = {"empty", "malformed"}
    return expected == got or (expected in undecided and got in undecided)


def test_corpus_has_no_false_approval_and_agrees(shared_dir: Path) -> None:
    rows = _load(shared_dir)
    false_approvals = []
    agree = 0
    misses = []
    for name, expected, text in rows:
        got = parse_verdict(text).decision.value
        if got == "approve" and expected != "approve":
            false_approvals.append(name)
        if _same(expected, got):
            agree += 1
        else:
            misses.append(f"{name}: expected {expected}, got {got}")
    assert false_approvals == []
    assert agree >= AGREEMENT_FLOOR, f"{agree}/{len(rows)}; misses: {misses}"


def test_corpus_decisions_survive_a_review_id(shared_dir: Path) -> None:
    """With a nonce expected and no trailer in the document, nothing approves."""
    for name, _expected, text in _load(shared_dir):
        assert not parse_verdict(text, review_id="nonce-123").approved, name
