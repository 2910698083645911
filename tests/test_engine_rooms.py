"""The engine's rooms talk through public names: what one room (`engine/_fleet`, `_runs`, …)
imports from another has no leading underscore in the module that owns it (CONTRIBUTING.md,
"Inside the engine: its rooms"); import-linter keeps the direction, this keeps the door."""

from __future__ import annotations

import ast
from pathlib import Path

import mergegate.engine

ENGINE = Path(mergegate.engine.__file__).parent
PREFIX = "mergegate.engine."


def _room(module: str) -> str:
    """The room of a dotted module under `mergegate.engine` (its first part there)."""
    return module.removeprefix(PREFIX).split(".")[0]


def _private_imports_across_rooms() -> list[str]:
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        relative = path.relative_to(ENGINE)
        here = relative.parts[0].removesuffix(".py") if len(relative.parts) > 1 else ""
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.module is None:
                continue
            if not node.module.startswith(PREFIX) or _room(node.module) == here:
                continue
            found += [
                f"{relative}: {alias.name} from {node.module}"
                for alias in node.names
                if alias.name.startswith("_")
            ]
    return found


def test_no_room_imports_a_private_name_of_another() -> None:
    assert _private_imports_across_rooms() == []


def test_the_rooms_are_found() -> None:
    """The check above reads the engine's real modules (an empty walk would pass anything)."""
    rooms = {p.name for p in ENGINE.iterdir() if p.is_dir() and p.name.startswith("_")}
    assert {"_context", "_records", "_steps", "_flow", "_runs", "_fleet"} <= rooms
