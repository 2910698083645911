"""A package's public names, each imported from its home module when it is first used.

`mergegate hook` and `mergegate parse` start on every call of an agent, so a package whose
names come from heavy modules (pydantic models, the engine) must not import them all when it
is imported: the package's module `__getattr__` (PEP 562) asks `LazyExports` instead. One home
for that mechanism; `tests/test_lazy_exports.py` holds every package's `__all__` to its table.
Standard library only, and nothing imported here at start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

__all__ = ["LazyExports"]


class LazyExports:
    """The table of `name → (home module, name there)` of one package.

    `homes` maps each home module to the names it exports under the same name; `renamed`
    maps a public name to `(home module, the name there)`. The package binds the two
    functions: `__getattr__ = exports.attribute` and `__dir__ = exports.names`.
    """

    __slots__ = ("_namespace", "_package", "_where")

    def __init__(
        self,
        namespace: dict[str, Any],
        homes: Mapping[str, tuple[str, ...]],
        renamed: Mapping[str, tuple[str, str]] | None = None,
    ) -> None:
        self._namespace = namespace
        self._package = str(namespace["__name__"])
        where = {name: (module, name) for module, names in homes.items() for name in names}
        where.update(renamed or {})
        self._where = where

    @property
    def lazy(self) -> frozenset[str]:
        """The names this table imports on first use."""
        return frozenset(self._where)

    def attribute(self, name: str) -> Any:
        """Import `name` from its home, keep it in the package's namespace, return it."""
        where = self._where.get(name)
        if where is None:
            raise AttributeError(f"module {self._package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[0]), where[1])
        self._namespace[name] = value  # the next lookup finds it without this function
        return value

    def names(self) -> list[str]:
        """What `dir(package)` shows: its public names."""
        return sorted(self._namespace.get("__all__", ()))
