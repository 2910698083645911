"""Packages whose public names are imported on first use (`mergegate.lazy_exports`): the
table each one keeps agrees with its `__all__`, and every name resolves to its home's object."""

from __future__ import annotations

import importlib
import types

import pytest

from mergegate.lazy_exports import LazyExports

LAZY_PACKAGES = ("mergegate.config", "mergegate.integrations", "mergegate.verdicts")


def _exports(package: types.ModuleType) -> LazyExports:
    exports = vars(package).get("_EXPORTS")
    assert isinstance(exports, LazyExports), f"{package.__name__} keeps no LazyExports table"
    return exports


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_the_table_names_exactly_the_public_names(name: str) -> None:
    package = importlib.import_module(name)
    public = set(package.__all__)
    lazy = _exports(package).lazy
    assert lazy <= public, f"{name}: imported lazily but not public: {sorted(lazy - public)}"
    # a public name not in the table must be bound when the package is imported
    eager = {n for n in public - lazy if n in vars(package)}
    assert public - lazy == eager, f"{name}: public but nowhere: {sorted(public - lazy - eager)}"
    assert dir(package) == sorted(public)


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_every_public_name_resolves_to_its_homes_object(name: str) -> None:
    package = importlib.import_module(name)
    for public in package.__all__:
        value = getattr(package, public)
        home = getattr(value, "__module__", None)
        if isinstance(home, str) and home.startswith(name + "."):
            assert getattr(importlib.import_module(home), public) is value
        assert vars(package)[public] is value  # kept: the next lookup is a plain one


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    config = importlib.import_module("mergegate.config")
    with pytest.raises(AttributeError, match=r"'mergegate\.config' has no attribute 'nope'"):
        config.nope  # noqa: B018


def test_a_renamed_export_resolves_to_the_name_in_its_home() -> None:
    namespace: dict[str, object] = {"__name__": "pkg", "__all__": ["Joined"]}
    exports = LazyExports(namespace, {}, {"Joined": ("os.path", "join")})
    import os.path

    assert exports.attribute("Joined") is os.path.join
    assert namespace["Joined"] is os.path.join
    assert exports.names() == ["Joined"]
