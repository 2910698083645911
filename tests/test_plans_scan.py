"""The scanners under every importer: fences, known tags, frontmatter, Markdown labels, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from mergegate.plans import PlanError, load_plan
from mergegate.plans._document import Document, read_document
from mergegate.plans._errors import Notes
from mergegate.plans._frontmatter import read_plan_frontmatter
from mergegate.plans._markdown import clean_path, label_at, split_paths
from mergegate.plans._tags import TagIndex


def doc(text: str) -> Document:
    return Document.from_text("f.md", text)


def test_fences_in_list_items_and_unclosed_fences() -> None:
    d = doc(
        "a\n   - ```bash\n   # Phase 1: x\n   ```\nb\n```inline``` text\n~~~~\n```\nc\n"
        "~~~~\n```\nopen"
    )
    assert d.fenced == (False, True, True, True, False, False, True, True, True, True, False, False)
    assert d.unclosed_fences == (10,)  # read as text, not as the rest of the file


def test_known_tags_only_at_line_starts_and_outside_fences() -> None:
    d = doc(
        "<tasks>\n"
        '<task type="auto">\n'
        "  <name>Task 1: A</name>\n"
        "  <action>\n"
        "Use Array<string> & <name>inline</name> here\n"
        "```\n"
        "<task>\n"
        "```\n"
        "  <done>\n"
        "  </action>\n"
        "  <done>multi\n"
        "line</done>\n"
        "</task>\n"
        "</tasks>\n"
    )
    tags = TagIndex(d)
    (tasks,) = tags.elements(frozenset({"tasks"}), 0, len(d.lines))
    (task,) = tags.elements(frozenset({"task"}), tasks.inner_start, tasks.inner_end)
    assert task.attrs == {"type": "auto"}
    parts = tags.elements(frozenset({"name", "action", "done"}), task.inner_start, task.inner_end)
    assert [(p.name, p.text) for p in parts] == [
        ("name", "Task 1: A"),
        ("action", "Use Array<string> & <name>inline</name> here\n```\n<task>\n```\n  <done>"),
        ("done", "multi\nline"),
    ]
    assert all(p.closed for p in parts)


def test_frontmatter_keeps_raw_text_and_lines() -> None:
    front = read_plan_frontmatter(
        doc(
            '---\nplan: 01\nquoted: "01"\nwave: 2\nwhen: 2025-11-03\nlist:\n  - a\n  - 7\n---\nbody'
        ),
        Notes(),
    )
    assert front is not None
    assert front.body_start == 9
    assert not front.loose
    root = front.root
    assert root.get("plan").text() == "01"
    assert root.get("plan").value == 1
    assert root.get("quoted").text() == "01"  # type: ignore[union-attr]
    assert root.get("when").value == "2025-11-03"  # type: ignore[union-attr]
    assert [i.line for i in root.get("list").items()] == [7, 8]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("---\nphase: 1\n", 1, "never closed"),
        ("---\n- a\n- b\n---\n", 2, "not a mapping"),
        ("---\n- a\nb: c\n---\n", 3, "not YAML"),
    ],
)
def test_frontmatter_errors(text: str, line: int, words: str) -> None:
    with pytest.raises(PlanError) as caught:
        read_plan_frontmatter(doc(text), Notes())
    assert caught.value.line == line
    assert words in str(caught.value)


def test_yaml_aliases_cannot_blow_up_frontmatter() -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    levels += [
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
    with pytest.raises(PlanError, match="frontmatter"):
        read_plan_frontmatter(doc("---\n" + "\n".join(levels) + "\n---\n"), Notes())


def test_labels_in_both_spellings() -> None:
    d = doc(
        "**Goal**: one\n**Goal:** two\n- **Files**:\n"
        "**Success Criteria** (what must be TRUE):\n**Step 1: Do it**\n"
    )
    found = [label_at(d, i) for i in range(5)]
    assert [(f.name, f.value) if f else None for f in found] == [
        ("Goal", "one"),
        ("Goal", "two"),
        ("Files", ""),
        ("Success Criteria", ""),
        None,
    ]


def test_paths_lose_markup_locators_and_commentary() -> None:
    assert clean_path("`src/a.py:12-40`") == ("src/a.py", "12-40")
    assert clean_path("src/b.py (new)") == ("src/b.py", None)
    assert clean_path("src/c.py:94,100") == ("src/c.py", "94,100")
    assert list(split_paths("a.ts, b.ts (new, big)\n- `c.ts` — why, really\n# comment\n")) == [
        "a.ts",
        "b.ts",
        "c.ts",
    ]


def test_limits(tmp_path: Path) -> None:
    big = tmp_path / "big-PLAN.md"
    big.write_bytes(b"x" * 100)
    with pytest.raises(PlanError, match="larger than 10 bytes"):
        read_document(big, "big-PLAN.md", max_bytes=10)
    bad = tmp_path / "bad-PLAN.md"
    bad.write_bytes(b"---\nok: 1\n---\n\xff\n")
    with pytest.raises(PlanError, match=r"^bad-PLAN\.md:4: not UTF-8"):
        load_plan(bad)
    with pytest.raises(PlanError, match="no such file"):
        load_plan(tmp_path / "missing")


def test_adversarial_input_is_scanned_in_linear_time(tmp_path: Path) -> None:
    # Quadratic scanning would take many minutes here; linear scanning takes a moment.
    n = 10_000
    lines = ["<tasks>"] + [
        f'<task type="auto">\n<action>\n{"`" * (3 + k % 5)}python' for k in range(n)
    ]
    path = tmp_path / "01-01-PLAN.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    result = load_plan(path)
    tasks = result.plan.phases[0].units[0].tasks
    assert len(tasks) == n
    assert sum(w.code == "unclosed-tag" for w in result.warnings) >= n
    assert sum(w.code == "unclosed-fence" for w in result.warnings) == n


def test_an_indented_fence_ends_with_its_block() -> None:
    # A ```bash nested in a ``` example is paired as nested (the last ``` closes the example);
    # a fence left open must not swallow the </action>, </task> and every task after it.
    d = doc(
        "<task>\n"
        "  <action>\n"
        "    ```\n"
        "    <step>\n"
        "    ```bash\n"
        "    run\n"
        "    ```\n"
        "    </step>\n"
        "    ```\n"
        "    more text\n"
        "  </action>\n"
        "</task>\n"
        "<task>\n"
    )
    assert d.fenced[2:10] == (True,) * 7 + (False,)
    assert d.fenced[10:] == (False,) * 4
    assert d.unclosed_fences == ()
    tags = TagIndex(d)
    assert len(tags.elements(frozenset({"task"}), 0, len(d.lines))) == 2
    left_open = doc(
        "<task>\n  <action>\n    ```\n    <step>\n    ```bash\n    run\n    </step>\n"
        "  </action>\n</task>\n<task>\n"
    )
    assert left_open.fenced[2:7] == (True,) * 5
    assert left_open.fenced[7:] == (False,) * 4  # the open ``` ends where </action> dedents
    assert len(TagIndex(left_open).elements(frozenset({"task"}), 0, len(left_open.lines))) == 2
