"""Issue 27: a mutation test on a realistic repository. The finished phase verifies; deleting
an artifact, stubbing a function body, breaking an import or making a check fail each turns
it into `gaps_found`, naming the criterion that caught it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from _gitrepo import change_repo
from mergegate.plans import Artifact, Check, KeyLink, MustHaves, Phase, Plan, PlanFormat, Task, Unit
from mergegate.verify import Result, VerificationStatus, VerifyOptions, verify_phase

MODELS = '''\
"""Items held in stock."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    quantity: int

    def restocked(self, amount: int) -> "Item":
        if amount <= 0:
            raise ValueError("restock by a positive amount")
        return Item(self.sku, self.name, self.quantity + amount)
'''
STORAGE = '''\
"""A JSON file of items."""

import json
from pathlib import Path

from inventory.models import Item


class Storage:
    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, Item]:
        if not self.path.exists():
            return {}
        raw = json.loads(self.path.read_text())
        return {sku: Item(sku, v["name"], v["quantity"]) for sku, v in raw.items()}

    def save(self, items: dict[str, Item]) -> None:
        data = {i.sku: {"name": i.name, "quantity": i.quantity} for i in items.values()}
        self.path.write_text(json.dumps(data, indent=2, sort_keys=True))
'''
SERVICE = '''\
"""Stock operations over a storage."""

from inventory.models import Item
from inventory.storage import Storage


def add_item(storage: Storage, sku: str, name: str, quantity: int) -> Item:
    items = storage.load()
    if sku in items:
        raise KeyError(f"{sku} exists")
    item = Item(sku, name, quantity)
    items[sku] = item
    storage.save(items)
    return item


def restock(storage: Storage, sku: str, amount: int) -> Item:
    items = storage.load()
    item = items[sku].restocked(amount)
    items[sku] = item
    storage.save(items)
    return item


def total_quantity(storage: Storage) -> int:
    return sum(item.quantity for item in storage.load().values())
'''
CLI = '''\
"""The command line."""

import argparse
from pathlib import Path

from inventory.service import add_item, restock, total_quantity
from inventory.storage import Storage


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="inventory")
    parser.add_argument("--file", type=Path, default=Path("stock.json"))
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add")
    add.add_argument("sku")
    add.add_argument("name")
    add.add_argument("quantity", type=int)
    more = sub.add_parser("restock")
    more.add_argument("sku")
    more.add_argument("amount", type=int)
    sub.add_parser("total")
    args = parser.parse_args(argv)
    storage = Storage(args.file)
    if args.command == "add":
        add_item(storage, args.sku, args.name, args.quantity)
    elif args.command == "restock":
        restock(storage, args.sku, args.amount)
    else:
        print(total_quantity(storage))
    return 0
'''
TESTS = """\
import tempfile
import unittest
from pathlib import Path

from inventory.service import add_item, restock, total_quantity
from inventory.storage import Storage


class ServiceTest(unittest.TestCase):
    def test_add_restock_total(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            storage = Storage(Path(tmp) / "stock.json")
            add_item(storage, "a1", "apple", 3)
            add_item(storage, "b2", "bean", 4)
            self.assertEqual(restock(storage, "a1", 2).quantity, 5)
            self.assertEqual(total_quantity(storage), 9)


if __name__ == "__main__":
    unittest.main()
"""
FILES = {
    "pyproject.toml": '[project]\nname = "inventory"\nversion = "0.1"\n'
    '[project.scripts]\ninventory = "inventory.cli:main"\n',
    "src/inventory/__init__.py": '"""Stock keeping."""\n',
    "src/inventory/models.py": MODELS,
    "src/inventory/storage.py": STORAGE,
    "src/inventory/service.py": SERVICE,
    "src/inventory/cli.py": CLI,
    "tests/__init__.py": "import sys\nsys.path.insert(0, 'src')\n",
    "tests/test_service.py": TESTS,
}
CHECK = f"{sys.executable} -m unittest discover -s tests -t . -q"


def _plan() -> Plan:
    artifacts = (
        Artifact(path="src/inventory/models.py", contains="class Item", min_lines=15),
        Artifact(path="src/inventory/storage.py", exports=("Storage",), min_lines=20),
        Artifact(
            path="src/inventory/service.py",
            exports=("add_item", "restock", "total_quantity"),
            min_lines=25,
        ),
        Artifact(path="src/inventory/cli.py", contains="def main", min_lines=20),
    )
    links = (
        KeyLink.model_validate({"from": "src/inventory/cli.py", "to": "src/inventory/service.py"}),
        KeyLink.model_validate(
            {
                "from": "src/inventory/service.py",
                "to": "src/inventory/storage.py",
                "pattern": r"storage\.save\(items\)",
            }
        ),
    )
    task = Task(id="1", name="stock service", checks=(Check(run=CHECK),))
    unit = Unit(
        id="01-01",
        completed=True,
        must_haves=MustHaves(artifacts=artifacts, key_links=links),
        tasks=(task,),
    )
    return Plan(
        format=PlanFormat.NATIVE,
        title="inventory",
        phases=(Phase(id="1", name="stock", units=(unit,)),),
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return change_repo(tmp_path / "repo", {"README.md": "inventory\n"}, FILES, message="phase 1")


def _verify(repo: Path, tmp_path: Path, name: str):  # type: ignore[no-untyped-def]
    return verify_phase(
        _plan(),
        "1",
        repo,
        run_dir=tmp_path / name,
        verifier=None,
        options=VerifyOptions(base="HEAD~1"),
    )


def test_the_finished_phase_verifies(repo: Path, tmp_path: Path) -> None:
    result = _verify(repo, tmp_path, "clean")
    assert result.status is VerificationStatus.PASSED, [
        (c.id, c.result.value, [e.detail for e in c.evidence]) for c in result.criteria
    ]


def _delete(repo: Path) -> None:
    (repo / "src/inventory/storage.py").unlink()


def _stub(repo: Path) -> None:
    path = repo / "src/inventory/service.py"
    text = path.read_text().replace(
        "    items = storage.load()\n    item = items[sku].restocked(amount)\n"
        "    items[sku] = item\n    storage.save(items)\n    return item\n",
        "    raise NotImplementedError\n",
    )
    path.write_text(text)


def _break_import(repo: Path) -> None:
    path = repo / "src/inventory/cli.py"
    path.write_text(
        path.read_text().replace("from inventory.service import", "from inventory.servise import")
    )


def _fail_check(repo: Path) -> None:
    path = repo / "src/inventory/models.py"
    path.write_text(
        path.read_text().replace("self.quantity + amount", "self.quantity + amount + 1")
    )


@pytest.mark.parametrize(
    ("mutate", "caught_by"),
    [
        (_delete, "01-01.artifact-2"),
        (_stub, "01-01.artifact-3"),
        (_break_import, "01-01.link-1"),
        (_fail_check, "01-01.t1.check-1"),
    ],
    ids=["delete-artifact", "stub-body", "break-import", "fail-check"],
)
def test_a_mutation_is_a_gap_naming_its_criterion(
    repo: Path, tmp_path: Path, mutate: object, caught_by: str
) -> None:
    assert callable(mutate)
    mutate(repo)
    result = _verify(repo, tmp_path, "mutated")
    assert result.status is VerificationStatus.GAPS_FOUND
    failed = {c.id for c in result.criteria if c.result is Result.FAIL}
    assert caught_by in failed, failed
    gap = next(c for c in result.criteria if c.id == caught_by)
    assert gap.next_step  # issue 25 item 15: every gap says what to do next
