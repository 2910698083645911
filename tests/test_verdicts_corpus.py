"""The shared corpus of real reviewer outputs (read at run time, never copied here)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from mergegate.verdicts import parse_verdict

# Issue 9 asks for at least 0.90 on the whole shared corpus (90 documents: 81). Measured
# when this floor was set: 85/90. The floor is a ratio, so new documents are scored too.
AGREEMENT_FLOOR = 0.90
_LANG = re.compile(r"\[lang=([^\]]+)\]")


def _load(shared_dir: Path) -> list[dict[str, str]]:
    root = shared_dir / "corpus" / "reviews"
    labels = root / "labels.jsonl"
    if not labels.is_file():
        pytest.skip("corpus/reviews is not in ../shared")
    rows = []
    for line in labels.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            item["text"] = (root / item["file"]).read_text(encoding="utf-8", errors="replace")
            match = _LANG.match(item.get("notes", ""))
            item["lang"] = match.group(1) if match else "?"
            rows.append(item)
    return rows


def _same(expected: str, got: str) -> bool:
    undecided = {"empty", "malformed"}
    return expected == got or (expected in undecided and got in undecided)


def _report(title: str, table: dict[str, list[int]]) -> str:
    lines = [f"{title}:"]
    for key, (agree, total) in sorted(table.items()):
        lines.append(f"  {key:32} {agree:3}/{total:<3} {agree / total:6.0%}")
    return "\n".join(lines)


def test_corpus_has_no_false_approval_and_agrees(shared_dir: Path) -> None:
    rows = _load(shared_dir)
    false_approvals = []
    misses = []
    by_dialect: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    agree = 0
    for row in rows:
        got = parse_verdict(row["text"]).decision.value
        same = _same(row["expected"], got)
        for table, key in ((by_dialect, row["dialect"]), (by_lang, row["lang"])):
            table[key][0] += int(same)
            table[key][1] += 1
        agree += int(same)
        if got == "approve" and row["expected"] != "approve":
            false_approvals.append(row["file"])
        if not same:
            misses.append(f"{row['file']}: expected {row['expected']}, got {got}")
    print(f"\nagreement {agree}/{len(rows)} ({agree / len(rows):.1%}); misses: {misses}")
    print(_report("per dialect", by_dialect))
    print(_report("per language", by_lang))
    assert false_approvals == []
    assert agree >= AGREEMENT_FLOOR * len(rows), f"{agree}/{len(rows)}; misses: {misses}"


def test_corpus_decisions_survive_a_review_id(shared_dir: Path) -> None:
    """With a nonce expected and no trailer in the document, nothing approves."""
    for row in _load(shared_dir):
        assert not parse_verdict(row["text"], review_id="nonce-123").approved, row["file"]
