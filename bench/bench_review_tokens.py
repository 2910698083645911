"""Reviewer tokens of a SCOPED re-review against a FULL re-review of the same change, same run.

One realistic change (a feature across several files, a few hundred changed lines) goes through
`ReviewLoop` with `--fix` twice — `rereview="scoped"` and `rereview="full"` — each time from
the same commit: round 1 approves the spec stage and asks for one important fix in the quality
stage, a scripted implementer (`command` backend) changes three lines, and round 2 re-reviews
the quality stage and approves. The figure is the reviewer's round-2 input tokens, full over
scoped (and the same for the whole run), as the reviewer's backend reported them:

* `openai` backend against an in-process `mergegate model-server`: the server counts request
  bytes / 4, so this is the prompt mergegate sends, nearly alone.
* the real Claude Code CLI against the same server (when installed, see
  scripts/install-agent-clis.sh): its requests also carry Claude Code's own system prompt and
  tool definitions, which are the same in both modes and dilute the ratio.
* optionally, the round-2 prompts counted by the real tokenizer of the `local` model
  (Qwen2.5-Coder via llama.cpp's `/tokenize`; skipped without the `local` extra).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import httpx

from mergegate.agents.base import Backend
from mergegate.agents.local import local_server, stop_local_server
from mergegate.agents.registry import get_backend
from mergegate.errors import AgentError
from mergegate.git import GitRepository
from mergegate.review import ReviewLoop, ReviewOptions, ReviewOutcome
from mergegate.testing.model_server import ModelServer, Script, ToolCall, Turn

REPO_ROOT = Path(__file__).resolve().parents[1]
CLAUDE_MODEL = "claude-sonnet-4-5"
MODES = ("scoped", "full")

# Markers, each in exactly one kind of prompt (see tests/real_cli/test_real_review.py).
SPEC = "STAGE 1 of 2"
QUALITY = "earlier rounds\n\nNone.\n\n## The project's own conventions"
SCOPED = "SCOPED RE-REVIEW"
FULL = "FULL RE-REVIEW"
ECHO = {"{{review_id}}": '"review_id": "', "{{scope}}": '"scope": "'}
FINDING = (
    '{"id": "csv-empty", "severity": "important", "title": "load_items() crashes on a CSV '
    'with only a header", "file": "inventory/csv_io.py", "line": 30, "detail": "guard the '
    'empty case", "suggestion": null, "requirement": null}'
)


def _answer(verdict: str, findings: str) -> str:
    """The reviewer's whole answer: one verdict object naming the prompt's review id and scope."""
    return (
        '{"review_id": "{{review_id}}", "scope": "{{scope}}", '
        f'"verdict": "{verdict}", "conditions": [], "findings": [{findings}], '
        '"summary": "reviewed", "confidence": 0.9}'
    )


APPROVE = _answer("approve", "")
ANSWERS = (
    (SPEC, APPROVE),
    (QUALITY, _answer("request_changes", FINDING)),
    (SCOPED, APPROVE),
    (FULL, APPROVE),
)
# The openai backend reads the answer from the message text (its `response_format`)...
SCRIPT = Script(turns=[Turn(match=m, text=answer, echo=ECHO) for m, answer in ANSWERS])
# ... Claude Code from its `StructuredOutput` tool call (`--json-schema`): a text answer is
# not one, and Claude Code asks again until the script runs out.
CLAUDE_SCRIPT = Script(
    turns=[
        Turn(match=m, tool_calls=[ToolCall(name="StructuredOutput", arguments=answer)], echo=ECHO)
        for m, answer in ANSWERS
    ]
)

TASK = """# Task: CSV import/export and low-stock alerts

Add CSV import and export of inventory items (`inventory/csv_io.py`) and low-stock alerts
(`inventory/alerts.py`), wire both into the store and the report, and test them.

Acceptance criteria:
- `load_items(path)` reads the CSV written by `save_items(items, path)` back unchanged.
- Rows with a missing SKU or a negative quantity are rejected with the row number.
- `low_stock(store)` lists items below their reorder level, most urgent first.
- The text report ends with an "Alerts" section when there are alerts.
"""

FIX_PROGRAM = """\
import pathlib
path = pathlib.Path("inventory/csv_io.py")
text = path.read_text()
old = "    rows = list(reader)\\n"
new = "    rows = list(reader)\\n    if not rows:\\n        return []\\n"
path.write_text(text.replace(old, new, 1))
print("csv-empty: load_items() returns [] for a header-only file")
"""

# ------------------------------------------------------------------------- the change


FIELDS = [
    ("sku", "str"),
    ("name", "str"),
    ("category", "str"),
    ("quantity", "int"),
    ("reorder_level", "int"),
    ("unit_cost", "float"),
    ("supplier", "str"),
    ("location", "str"),
]


def _base_files() -> dict[str, str]:
    fields = "\n".join(f"    {n}: {t}" for n, t in FIELDS)
    return {
        "README.md": "# inventory\n\nA small inventory store with a text report.\n",
        "inventory/__init__.py": '"""A small inventory store."""\n',
        "inventory/models.py": textwrap.dedent(
            '''\
            """Inventory items."""

            from __future__ import annotations

            from dataclasses import dataclass


            @dataclass(frozen=True)
            class Item:
            {fields}

                @property
                def value(self) -> float:
                    return self.quantity * self.unit_cost
            '''
        ).replace("{fields}", fields),
        "inventory/store.py": textwrap.dedent(
            '''\
            """An in-memory store of items, keyed by SKU."""

            from __future__ import annotations

            from collections.abc import Iterable, Iterator

            from inventory.models import Item


            class Store:
                def __init__(self, items: Iterable[Item] = ()) -> None:
                    self._items: dict[str, Item] = {}
                    for item in items:
                        self.add(item)

                def add(self, item: Item) -> None:
                    if item.sku in self._items:
                        raise KeyError(f"duplicate SKU {item.sku}")
                    self._items[item.sku] = item

                def get(self, sku: str) -> Item:
                    return self._items[sku]

                def __iter__(self) -> Iterator[Item]:
                    return iter(sorted(self._items.values(), key=lambda i: i.sku))

                def __len__(self) -> int:
                    return len(self._items)

                def total_value(self) -> float:
                    return sum(item.value for item in self)
            '''
        ),
        "inventory/report.py": textwrap.dedent(
            '''\
            """A plain-text report of the store."""

            from __future__ import annotations

            from inventory.store import Store


            def render(store: Store) -> str:
                lines = [f"{len(store)} items, total value {store.total_value():.2f}", ""]
                for item in store:
                    lines.append(f"{item.sku:<10} {item.name:<30} {item.quantity:>6}")
                return "\\n".join(lines) + "\\n"
            '''
        ),
        "tests/test_store.py": textwrap.dedent(
            """\
            from inventory.models import Item
            from inventory.store import Store


            def make(sku: str, quantity: int = 1) -> Item:
                return Item(sku, "n", "c", quantity, 0, 1.0, "s", "l")


            def test_total_value() -> None:
                assert Store([make("a", 2), make("b", 3)]).total_value() == 5.0
            """
        ),
    }


def _validators() -> str:
    out = []
    for name, kind in FIELDS:
        if kind == "str":
            body = f"""\
                value = row.get("{name}", "").strip()
                if not value:
                    raise RowError(number, "missing {name}")
                if len(value) > 200:
                    raise RowError(number, "{name} is longer than 200 characters")
                return value"""
        else:
            cast = "int" if kind == "int" else "float"
            body = f"""\
                raw = row.get("{name}", "").strip()
                try:
                    value = {cast}(raw)
                except ValueError:
                    raise RowError(number, f"{name} is not a number: {{raw!r}}") from None
                if value < 0:
                    raise RowError(number, "{name} is negative")
                return value"""
        out.append(
            f"def _parse_{name}(row: dict[str, str], number: int) -> {kind}:\n"
            f'    """The `{name}` column of row `number`, validated."""\n'
            + textwrap.dedent(body).replace("\n", "\n    ").join(["    ", ""])
            + "\n"
        )
    return "\n\n".join(out)


def _changed_files() -> dict[str, str]:
    header = ", ".join(f'"{n}"' for n, _ in FIELDS)
    parse = "".join(f"        _parse_{n}(row, number),\n" for n, _ in FIELDS)
    csv_io = (
        textwrap.dedent(
            '''\
            """CSV import and export of inventory items."""

            from __future__ import annotations

            import csv
            from collections.abc import Iterable
            from pathlib import Path

            from inventory.models import Item

            HEADER = (__HEADER__)


            class RowError(ValueError):
                """A CSV row that cannot be an item, with its 1-based row number."""

                def __init__(self, number: int, message: str) -> None:
                    super().__init__(f"row {number}: {message}")
                    self.number = number


            def load_items(path: Path) -> list[Item]:
                """Read the items of a CSV file written by `save_items`."""
                with path.open(newline="", encoding="utf-8") as handle:
                    reader = csv.DictReader(handle)
                    rows = list(reader)
                missing = [c for c in HEADER if c not in (reader.fieldnames or [])]
                if missing:
                    raise RowError(1, f"missing columns: {', '.join(missing)}")
                return [_item(row, number) for number, row in enumerate(rows, start=2)]


            def save_items(items: Iterable[Item], path: Path) -> int:
                """Write `items` to `path`; return how many were written."""
                count = 0
                with path.open("w", newline="", encoding="utf-8") as handle:
                    writer = csv.writer(handle)
                    writer.writerow(HEADER)
                    for item in items:
                        writer.writerow([getattr(item, column) for column in HEADER])
                        count += 1
                return count


            def _item(row: dict[str, str], number: int) -> Item:
                return Item(
                    __PARSE__
                )

            '''
        )
        .replace("__HEADER__", header)
        .replace("__PARSE__", parse.strip())
        + "\n"
        + _validators()
    )
    alerts = textwrap.dedent(
        '''\
        """Low-stock alerts."""

        from __future__ import annotations

        from dataclasses import dataclass

        from inventory.models import Item
        from inventory.store import Store


        @dataclass(frozen=True)
        class Alert:
            item: Item
            shortfall: int

            @property
            def urgency(self) -> float:
                """How far below its reorder level the item is, as a fraction of that level."""
                if self.item.reorder_level == 0:
                    return 0.0
                return self.shortfall / self.item.reorder_level

            def describe(self) -> str:
                return (
                    f"{self.item.sku}: {self.item.quantity} left, reorder level "
                    f"{self.item.reorder_level} (short by {self.shortfall}, "
                    f"supplier {self.item.supplier})"
                )


        def low_stock(store: Store) -> list[Alert]:
            """Items below their reorder level, most urgent first (then by SKU)."""
            alerts = [
                Alert(item, item.reorder_level - item.quantity)
                for item in store
                if item.quantity < item.reorder_level
            ]
            return sorted(alerts, key=lambda a: (-a.urgency, a.item.sku))


        def by_supplier(alerts: list[Alert]) -> dict[str, list[Alert]]:
            """Alerts grouped by supplier, for one purchase order each."""
            grouped: dict[str, list[Alert]] = {}
            for alert in alerts:
                grouped.setdefault(alert.item.supplier, []).append(alert)
            return grouped


        def reorder_cost(alerts: list[Alert]) -> float:
            """What it costs to bring every alerted item back to its reorder level."""
            return sum(a.shortfall * a.item.unit_cost for a in alerts)
        '''
    )
    files = _base_files()
    files["inventory/csv_io.py"] = csv_io
    files["inventory/alerts.py"] = alerts
    files["inventory/store.py"] += textwrap.indent(
        textwrap.dedent(
            '''
            def by_category(self) -> dict[str, list[Item]]:
                """Items grouped by category, each group sorted by SKU."""
                grouped: dict[str, list[Item]] = {}
                for item in self:
                    grouped.setdefault(item.category, []).append(item)
                return grouped

            def restock(self, sku: str, quantity: int) -> Item:
                """Add `quantity` units of an item; return the updated item."""
                if quantity <= 0:
                    raise ValueError("restock quantity must be positive")
                old = self.get(sku)
                new = Item(
                    old.sku,
                    old.name,
                    old.category,
                    old.quantity + quantity,
                    old.reorder_level,
                    old.unit_cost,
                    old.supplier,
                    old.location,
                )
                self._items[sku] = new
                return new

            @classmethod
            def from_csv(cls, path: "Path") -> "Store":
                """A store holding the items of a CSV file (see inventory.csv_io)."""
                from inventory.csv_io import load_items

                return cls(load_items(path))
        '''
        ),
        "    ",
    )
    files["inventory/report.py"] = (
        files["inventory/report.py"]
        .replace(
            '    return "\\n".join(lines) + "\\n"\n',
            textwrap.indent(
                textwrap.dedent(
                    """\
                alerts = low_stock(store)
                if alerts:
                    lines += ["", "Alerts", "------"]
                    lines += [alert.describe() for alert in alerts]
                    lines.append(f"reorder cost: {reorder_cost(alerts):.2f}")
                    for supplier, group in sorted(by_supplier(alerts).items()):
                        lines.append(f"  {supplier}: {len(group)} item(s)")
                return "\\n".join(lines) + "\\n"
            """
                ),
                "    ",
            ),
        )
        .replace(
            "from inventory.store import Store\n",
            "from inventory.alerts import by_supplier, low_stock, reorder_cost\n"
            "from inventory.store import Store\n",
        )
    )
    files["tests/test_csv_io.py"] = _csv_tests()
    files["tests/test_alerts.py"] = _alert_tests()
    files["README.md"] += (
        "\n## CSV\n\n`save_items(items, path)` and `load_items(path)` round-trip the store.\n"
        "Rows with a missing SKU or a negative quantity are rejected with their row number.\n"
        "\n## Alerts\n\n`low_stock(store)` lists items below their reorder level, most urgent\n"
        "first; the text report ends with an Alerts section when there are any.\n"
    )
    return files


def _csv_tests() -> str:
    cases = []
    for name, kind in FIELDS:
        bad = '""' if kind == "str" else '"-1"'
        cases.append(
            textwrap.dedent(
                f'''\
                def test_a_bad_{name}_is_rejected_with_its_row(tmp_path: Path) -> None:
                    path = tmp_path / "items.csv"
                    save_items([make("a")], path)
                    rows = path.read_text().splitlines()
                    header = rows[0].split(",")
                    values = rows[1].split(",")
                    values[header.index("{name}")] = {bad}
                    path.write_text(rows[0] + "\\n" + ",".join(values) + "\\n")
                    with pytest.raises(RowError, match="row 2"):
                        load_items(path)
                '''
            )
        )
    head = textwrap.dedent(
        """\
        from pathlib import Path

        import pytest

        from inventory.csv_io import RowError, load_items, save_items
        from inventory.models import Item


        def make(sku: str, quantity: int = 1) -> Item:
            return Item(sku, "name", "cat", quantity, 2, 1.5, "acme", "A1")


        def test_round_trip(tmp_path: Path) -> None:
            items = [make("a", 3), make("b", 0)]
            path = tmp_path / "items.csv"
            assert save_items(items, path) == 2
            assert load_items(path) == items

        """
    )
    return head + "\n\n".join(cases)


def _alert_tests() -> str:
    return textwrap.dedent(
        """\
        from inventory.alerts import by_supplier, low_stock, reorder_cost
        from inventory.models import Item
        from inventory.store import Store


        def make(sku: str, quantity: int, level: int, supplier: str = "acme") -> Item:
            return Item(sku, "n", "c", quantity, level, 2.0, supplier, "l")


        def test_most_urgent_first() -> None:
            store = Store([make("a", 9, 10), make("b", 1, 10), make("c", 50, 10)])
            assert [a.item.sku for a in low_stock(store)] == ["b", "a"]


        def test_reorder_cost() -> None:
            alerts = low_stock(Store([make("a", 8, 10), make("b", 5, 10)]))
            assert reorder_cost(alerts) == (2 + 5) * 2.0


        def test_grouped_by_supplier() -> None:
            store = Store([make("a", 1, 5, "x"), make("b", 1, 5, "y"), make("c", 1, 5, "x")])
            grouped = by_supplier(low_stock(store))
            assert sorted(grouped) == ["x", "y"]
            assert len(grouped["x"]) == 2
        """
    )


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def make_origin(root: Path) -> tuple[Path, str]:
    """A repository whose last commit is the change; returns it and the diff stat line."""
    repo = root / "origin"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "bench@example.com")
    _git(repo, "config", "user.name", "bench")
    _write(repo, _base_files())
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "inventory store")
    _write(repo, _changed_files())
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "CSV import/export and low-stock alerts")
    return repo, _git(repo, "diff", "--shortstat", "HEAD~1", "HEAD")


# ------------------------------------------------------------------------- one run


@dataclass
class RunFigures:
    round2_input: int
    round2_output: int
    run_input: int
    run_output: int
    round2_prompt: Path


def review_once(
    origin: Path, work: Path, reviewer: Backend, mode: str, implementer: Backend
) -> RunFigures:
    repo = work / f"repo-{mode}"
    _git(work, "clone", "-q", str(origin), str(repo))
    _git(repo, "config", "user.email", "bench@example.com")
    _git(repo, "config", "user.name", "bench")
    reports = work / f"reports-{mode}"
    options = ReviewOptions(
        base="HEAD~1",
        spec=TASK,
        fix=True,
        rereview="full" if mode == "full" else "scoped",
        timeout_s=300.0,
        stall_timeout_s=120.0,
    )
    loop = ReviewLoop(
        GitRepository(repo, exclude=[reports]),
        reviewer,
        options,
        report_root=reports,
        implementer=implementer,
    )
    outcome = loop.run()
    return _figures(outcome, mode)


def _figures(outcome: ReviewOutcome, mode: str) -> RunFigures:
    shape = [(r.round, [a.decision for a in r.attempts]) for r in outcome.rounds]
    expected = [(1, ["approve", "fixes"]), (2, ["approve"])]
    if outcome.decision.value != "approve" or shape != expected:
        raise SystemExit(f"{mode}: unexpected run {shape}: {outcome.message}")
    second = outcome.rounds[1].attempts
    total = outcome.usage["reviewer"].usage
    return RunFigures(
        round2_input=sum(a.usage.input_tokens + a.usage.cache_read_tokens for a in second),
        round2_output=sum(a.usage.output_tokens for a in second),
        run_input=total.input_tokens + total.cache_read_tokens,
        run_output=total.output_tokens,
        round2_prompt=Path(second[0].report).with_suffix(".prompt.md"),
    )


def compare(
    label: str, origin: Path, work: Path, reviewer: Backend, implementer: Backend
) -> dict[str, RunFigures]:
    """Both modes with one reviewer, under `work` (a fresh directory); print the figures."""
    work.mkdir()
    figures = {mode: review_once(origin, work, reviewer, mode, implementer) for mode in MODES}
    scoped, full = figures["scoped"], figures["full"]
    print(f"\n[{label}]")
    for mode, f in figures.items():
        print(
            f"  {mode:<6} round-2 reviewer input {f.round2_input:>7} tokens, "
            f"output {f.round2_output:>4}; whole run reviewer input {f.run_input:>7}, "
            f"output {f.run_output:>4}"
        )
    print(
        f"  round-2 input tokens, full / scoped:   {full.round2_input / scoped.round2_input:.2f}x"
    )
    print(
        f"  whole-run reviewer tokens, full / scoped: "
        f"{(full.run_input + full.run_output) / (scoped.run_input + scoped.run_output):.2f}x"
    )
    return figures


# ------------------------------------------------------------------------- reviewers


def find_claude() -> Path | None:
    explicit = os.environ.get("MERGEGATE_CLAUDE_BIN")
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    prefix = Path(os.environ.get("MERGEGATE_AGENT_CLIS_DIR", REPO_ROOT / ".agent-clis"))
    candidate = prefix / "node_modules" / ".bin" / "claude"
    return candidate if candidate.is_file() else None


def claude_reviewer(binary: Path, server: ModelServer, home: Path) -> Backend:
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    return get_backend(
        "claude",
        executable=str(binary),
        base_url=server.url,
        api_key="dummy-not-a-key",
        config_home=home / ".claude",
        model=CLAUDE_MODEL,
        env=env,
        kill_grace_s=3.0,
    )


def local_token_counts(prompts: dict[str, Path]) -> dict[str, int] | str:
    """Tokens of each prompt by the local model's own tokenizer, or why that was skipped."""
    try:
        server = local_server()
    except AgentError as exc:  # a missing extra or model: report it, do not fail the bench
        return f"skipped ({exc})"
    try:
        counts = {}
        for mode, path in prompts.items():
            response = httpx.post(
                f"{server.address}/tokenize",
                json={"content": path.read_text()},
                timeout=60,
                trust_env=False,
            )
            counts[mode] = len(response.json()["tokens"])
        return counts
    finally:
        stop_local_server()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="mg-bench-tokens-") as tmp:
        work = Path(tmp)
        os.environ["MERGEGATE_STATE_DIR"] = str(work / "state")
        origin, stat = make_origin(work)
        fix = work / "fix.py"
        fix.write_text(FIX_PROGRAM)
        implementer = get_backend("command", cmd=[sys.executable, str(fix)])
        print(f"change under review: {stat}; round 1 asks for one important fix,")
        print("a scripted implementer changes 3 lines, round 2 re-reviews the quality stage.")
        with ModelServer(SCRIPT) as server:
            openai = get_backend(
                "openai",
                base_url=server.openai_base_url,
                model="mock-model",
                state_dir=work / "state",
                trust_env=False,
            )
            print("\ntokens = the model server's count (request bytes / 4) as each backend")
            print("reports it; input includes cache reads")
            figures = compare(
                "openai backend -> model server", origin, work / "openai", openai, implementer
            )
        binary = find_claude()
        if binary is None:
            print("\n[real Claude Code CLI] skipped: not installed")
            print("  (bash scripts/install-agent-clis.sh installs it)")
        else:
            with ModelServer(CLAUDE_SCRIPT) as server:
                reviewer = claude_reviewer(binary, server, work / "claude-home")
                compare(
                    "real Claude Code CLI -> model server "
                    "(requests include Claude Code's system prompt and tools)",
                    origin,
                    work / "claude",
                    reviewer,
                    implementer,
                )
        counts = local_token_counts({m: f.round2_prompt for m, f in figures.items()})
        print("\n[round-2 prompt text, counted by the local model's tokenizer (Qwen2.5-Coder)]")
        if isinstance(counts, str):
            print(f"  {counts}")
        else:
            print(f"  scoped {counts['scoped']} tokens, full {counts['full']} tokens")
            print(f"  full / scoped: {counts['full'] / counts['scoped']:.2f}x")


if __name__ == "__main__":
    main()
