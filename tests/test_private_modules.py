"""The underscore means one thing everywhere in `src`: a module or package whose name starts
with `_` is imported only from inside the package that holds it.

A package's public names are its `__init__`'s (or a module without the underscore); what other
packages need of a private module is exported there. So a reader can tell from a name alone
whether anything outside its package depends on it (issue 26: five packages mixed public and
private modules, and the underscore told a reader nothing consistent).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = "mergegate"


def _module_of(path: Path) -> tuple[str, str]:
    """(the module's dotted name, the package its relative imports start from)."""
    parts = path.relative_to(SRC).with_suffix("").parts
    if parts[-1] == "__init__":
        name = ".".join(parts[:-1])
        return name, name
    return ".".join(parts), ".".join(parts[:-1])


def _imported(tree: ast.AST, package: str) -> Iterator[tuple[int, str]]:
    """Every dotted name an import statement names (a `from m import n` names `m` and `m.n`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def private_owner(dotted: str) -> str | None:
    """The package that owns the first private part of a `mergegate` name, or None."""
    parts = dotted.split(".")
    if parts[0] != ROOT:
        return None
    for i, part in enumerate(parts[1:], start=1):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def reaches_into(importer_package: str, dotted: str) -> bool:
    owner = private_owner(dotted)
    return owner is not None and not (
        importer_package == owner or importer_package.startswith(owner + ".")
    )


def test_the_rule_reads_names_as_meant() -> None:
    assert reaches_into("mergegate.cli", "mergegate.integrations._fast")
    assert reaches_into("mergegate.handoff", "mergegate.verdicts._scan.scan_objects")
    assert not reaches_into("mergegate.verdicts._templates", "mergegate.verdicts._scan")
    assert not reaches_into("mergegate.verdicts", "mergegate.verdicts._scan")
    assert not reaches_into("mergegate.cli", "mergegate.integrations.admin")
    assert not reaches_into("mergegate.store", "dbos._core")  # another project's business
    assert not reaches_into("mergegate.cli", "mergegate.__version__")


def test_no_module_imports_another_packages_private_module() -> None:
    found = []
    for path in sorted((SRC / ROOT).rglob("*.py")):
        name, package = _module_of(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, dotted in _imported(tree, package):
            if reaches_into(package, dotted):
                found.append(f"{name}:{line} imports {dotted}")
    assert not found, "a private module used outside its package:\n" + "\n".join(sorted(set(found)))
