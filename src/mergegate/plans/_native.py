"""mergegate's own plan format: one YAML file that mirrors the model (see docs/plans.md).

Why YAML and not TOML: the model has optional values (a unit with no declared wave, a check
with no time limit) and free `extra` mappings copied from other formats that may hold nulls —
TOML has no null, so a TOML file could not hold every model and read back equal. PyYAML is a
runtime dependency anyway (GSD frontmatter), and people who write GSD frontmatter already write
YAML.

YAML's implicit typing is what makes hand-written YAML treacherous (`01` → 1, `no` → False,
`14.10` → 14.1), so this reader resolves plain scalars the YAML 1.2 way and no further: only
`true`/`false`, `null`/`~`, and decimal integers without leading zeros are typed; everything
else is a string (`01`, `14.10`, `no` stay as written). The writer uses the same rules, so it
quotes exactly the strings that would otherwise read back as something else. Anchors and
aliases are refused (they are how YAML bombs are built), as are duplicate keys.

Reading fills in `source` (this file, the element's line) for every phase, unit, task,
criterion, check and must-have that does not carry one, so hand-written plans point at their
own lines; a `source` written in the file (a plan exported from another format) is kept.
Shorthands for hand-writing: a criterion may be a plain string (its text), a check a plain
string (its command).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import Enum
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from mergegate.plans._document import Document
from mergegate.plans._errors import PlanError
from mergegate.plans._model import Plan, PlanFormat

__all__ = ["MAX_DEPTH", "NATIVE_VERSION", "dump_native", "is_native", "read_native"]

NATIVE_VERSION = 1
MAX_DEPTH = 64
"""Nesting levels a plan's YAML may have (the model itself needs under ten)."""
_MARKER = "mergegate_plan"
_ELEMENT_LISTS = frozenset(
    {
        "phases", "units", "tasks", "success_criteria", "acceptance_criteria", "commands",
        "checks", "artifacts", "key_links", "steps",
    }
)  # fmt: skip
_SHORTHAND = {
    "success_criteria": "text",
    "acceptance_criteria": "text",
    "commands": "run",
    "checks": "run",
}
_MAX_ERRORS = 10


class _Loader(yaml.SafeLoader):
    """Safe loading with YAML 1.2 core scalars, line marks, no aliases, no duplicate keys,
    and nesting at most `MAX_DEPTH` deep (PyYAML composes recursively: a 100 000-deep
    `[[[…]]]` would end in a RecursionError traceback instead of a plan error)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.map_lines: dict[int, int] = {}
        self.seq_lines: dict[int, list[int]] = {}
        self.keep: list[object] = []
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if self.check_event(yaml.AliasEvent):
            raise yaml.MarkedYAMLError(
                None, None, "aliases (*name) are not allowed in a plan", event.start_mark
            )
        if self.depth >= MAX_DEPTH:
            raise yaml.MarkedYAMLError(
                None, None, f"nested deeper than {MAX_DEPTH} levels", event.start_mark
            )
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


class _Dumper(yaml.SafeDumper):
    """Quotes exactly the strings `_Loader` would not read back as strings."""


for _cls in (_Loader, _Dumper):
    _cls.yaml_implicit_resolvers = {}
    _cls.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    _cls.add_implicit_resolver(
        "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
    )
    _cls.add_implicit_resolver(
        "tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789")
    )


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> Iterator[dict[str, Any]]:
    data: dict[str, Any] = {}
    loader.keep.append(data)
    loader.map_lines[id(data)] = node.start_mark.line + 1
    yield data
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            raise yaml.MarkedYAMLError(None, None, f"key {key!r} is not text", key_node.start_mark)
        if key in data:
            raise yaml.MarkedYAMLError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        data[key] = loader.construct_object(value_node, deep=True)


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> Iterator[list[Any]]:
    data: list[Any] = []
    loader.keep.append(data)
    loader.seq_lines[id(data)] = [child.start_mark.line + 1 for child in node.value]
    yield data
    data.extend(loader.construct_object(child, deep=True) for child in node.value)


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


_BREAKS = frozenset("\x85\u2028\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # PyYAML writes NEL and the Unicode line separators raw in plain, single-quoted and block
    # scalars, where its own reader takes them for line breaks; only "..." escapes them.
    if _BREAKS.intersection(value):
        style: str | None = '"'
    else:
        style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


def is_native(doc: Document) -> bool:
    """True when the file declares itself a mergegate plan (`mergegate_plan:` at the top)."""
    return any(
        line.startswith(f"{_MARKER}:") for i, line in enumerate(doc.lines) if not doc.fenced[i]
    )


def read_native(doc: Document) -> Plan:
    """Read and validate a native plan file. Raises `PlanError` with the line of the fault."""
    loader: _Loader | None = None
    try:
        # The reader refuses raw control characters already while it is being built.
        loader = _Loader("\n".join(doc.lines))
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise PlanError(
            f"not valid YAML: {exc.problem or exc.context}", file=doc.rel, line=line
        ) from exc
    except yaml.YAMLError as exc:
        raise PlanError(f"not valid YAML: {_first_line(exc)}", file=doc.rel) from exc
    finally:
        if loader is not None:
            loader.dispose()
    if not isinstance(data, dict) or _MARKER not in data:
        raise PlanError(
            f"not a mergegate plan: no top-level `{_MARKER}: {NATIVE_VERSION}`", file=doc.rel
        )
    version = data.pop(_MARKER)
    if version != NATIVE_VERSION:
        raise PlanError(
            f"`{_MARKER}: {version}` is not a version this mergegate reads ({NATIVE_VERSION})",
            file=doc.rel,
        )
    data.setdefault("format", PlanFormat.NATIVE.value)
    _prepare(loader, data, doc.rel, None, 1)
    if "source" not in data:
        data["source"] = {"file": doc.rel, "line": 1}
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanError(
            _describe(loader, data, exc), file=doc.rel, line=_error_line(loader, data, exc)
        ) from exc


def _first_line(exc: yaml.YAMLError) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _prepare(loader: _Loader, obj: Any, rel: str, key: str | None, line: int) -> None:
    """Expand shorthands and add `source` to elements that lack one (never inside `extra`)."""
    if isinstance(obj, dict):
        for name, value in obj.items():
            if name != "extra":
                _prepare(loader, value, rel, name, loader.map_lines.get(id(obj), line))
        return
    if not isinstance(obj, list) or key not in _ELEMENT_LISTS:
        return
    lines = loader.seq_lines.get(id(obj), [])
    for index, value in enumerate(obj):
        at = lines[index] if index < len(lines) else line
        item = {_SHORTHAND[key]: value} if isinstance(value, str) and key in _SHORTHAND else value
        obj[index] = item
        if isinstance(item, dict):
            if "source" not in item:
                item["source"] = {"file": rel, "line": loader.map_lines.get(id(item), at)}
            _prepare(loader, item, rel, None, at)


def _walk(data: Any, loc: tuple[int | str, ...]) -> Iterator[Any]:
    yield data
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return
        yield data


def _error_line(loader: _Loader, data: Any, exc: ValidationError) -> int:
    first = exc.errors(include_url=False)[0]
    line = 1
    for node in _walk(data, tuple(first["loc"])):
        line = loader.map_lines.get(id(node), line)
    return line


def _describe(loader: _Loader, data: Any, exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)
    parts = []
    for error in errors[:_MAX_ERRORS]:
        where = ".".join(str(part) for part in error["loc"]) or "(top)"
        line = 1
        for node in _walk(data, tuple(error["loc"])):
            line = loader.map_lines.get(id(node), line)
        parts.append(f"{where} (line {line}): {error['msg']}")
    more = f"; and {len(errors) - _MAX_ERRORS} more" if len(errors) > _MAX_ERRORS else ""
    return "does not match the plan model: " + "; ".join(parts) + more


def dump_native(plan: Plan) -> str:
    """The plan as a native YAML file; `read_native` of the result equals `plan`."""
    body = {_MARKER: NATIVE_VERSION, **_plain(plan)}
    text: str = yaml.dump(
        body, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, indent=2
    )
    return text


def _plain(model: BaseModel) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if name != "source" and value == info.get_default(call_default_factory=True):
            continue  # defaults stay implicit; `source: null` must not (reading would add one)
        out[info.alias or name] = _value(value)
    return out


def _value(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return _plain(value)
    if isinstance(value, tuple | list):
        return [_value(item) for item in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {key: _value(item) for key, item in value.items()}
    return value
