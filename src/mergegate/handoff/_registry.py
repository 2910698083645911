"""Schemas by name: the built-ins, pydantic models users register, and JSON Schema files.

A `Schema` validates one parsed JSON object and says what is wrong in lines a retry prompt can
quote. Two kinds exist: `ModelSchema` (any pydantic model or annotated type, validated strictly
from the JSON text) and `JsonSchemaFile` (a JSON Schema document, validated with the
`jsonschema` library, draft taken from `$schema`, 2020-12 by default).
"""

from __future__ import annotations

import functools
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from jsonschema import exceptions as jsonschema_exceptions
from jsonschema import validators as jsonschema_validators
from pydantic import TypeAdapter, ValidationError
from referencing import Registry

from mergegate.config import Config
from mergegate.errors import ConfigError, UsageError
from mergegate.handoff._envelope import Envelope
from mergegate.handoff._failures import ErrorKind
from mergegate.handoff._payloads import (
    AdvicePayload,
    AgentResultPayload,
    CodeReviewResultPayload,
    ReviewVerdictPayload,
    ScratchpadPayload,
    SupervisorDecision,
    VerifierVerdictPayload,
    check_advice,
    check_agent_result,
    check_code_review_result,
    check_review_verdict,
    check_scratchpad,
    check_supervisor_decision,
    check_verifier_verdict,
)
from mergegate.handoff._template import render_template
from mergegate.untrusted import bounded

__all__ = [
    "Check",
    "JsonSchemaFile",
    "ModelSchema",
    "Schema",
    "SchemaRegistry",
    "UnknownSchemaError",
    "Validation",
    "default_registry",
    "registry_for",
]

Check = Callable[[Any, Mapping[str, Any] | None], Iterable[str]]
"""A consistency check: `(validated value, context) -> problems` (empty when consistent)."""

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_MAX_PROBLEMS = 20
_MAX_INPUT_REPR = 80


class UnknownSchemaError(UsageError):
    """No schema of that name (exit 2); the message lists the known names."""


@dataclass(frozen=True, slots=True)
class Validation:
    """The outcome of validating one object: a value, or a kind and its problems."""

    value: Any = None
    kind: ErrorKind | None = None
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.kind is None


class Schema(ABC):
    """A named payload schema."""

    name: str
    description: str

    @abstractmethod
    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema document of this payload."""

    @abstractmethod
    def validate(
        self,
        raw: str,
        obj: dict[str, Any],
        *,
        strict: bool = True,
        context: Mapping[str, Any] | None = None,
    ) -> Validation:
        """Validate one object, given both as JSON text (`raw`) and as parsed (`obj`).

        `strict=False` ignores fields the schema does not declare; types stay strict.
        Never raises for invalid input: problems are returned.
        """

    def dump(self, value: Any) -> Any:
        """A validated value as JSON-able data (models become dicts, defaults included)."""
        return value

    def template(self, *, required_only: bool = False) -> str:
        """A format template for retry prompts (see `render_template`)."""
        return render_template(self.json_schema(), required_only=required_only)

    def validate_object(
        self,
        obj: dict[str, Any],
        *,
        strict: bool = True,
        context: Mapping[str, Any] | None = None,
    ) -> Validation:
        """Validate an already-parsed object (e.g. an envelope's `data`)."""
        return self.validate(json.dumps(obj), obj, strict=strict, context=context)


class ModelSchema(Schema):
    """A schema backed by a pydantic model or any type pydantic can validate."""

    def __init__(
        self,
        name: str,
        type_: Any,
        *,
        check: Check | None = None,
        description: str = "",
    ) -> None:
        self.name = _checked_name(name)
        self.type_ = type_
        self.adapter: TypeAdapter[Any] = TypeAdapter(type_)
        self.check = check
        self.description = description or (getattr(type_, "__doc__", None) or "").strip()
        self._json_schema: dict[str, Any] | None = None

    def json_schema(self) -> dict[str, Any]:
        if self._json_schema is None:
            self._json_schema = self.adapter.json_schema()
        return self._json_schema

    def dump(self, value: Any) -> Any:
        return self.adapter.dump_python(value, mode="json")

    def validate(
        self,
        raw: str,
        obj: dict[str, Any],
        *,
        strict: bool = True,
        context: Mapping[str, Any] | None = None,
    ) -> Validation:
        try:
            # From the JSON text, in strict mode: JSON strings are not numbers or booleans, but
            # an ISO 8601 string is still a valid datetime (which strict Python mode refuses).
            value = self.adapter.validate_json(
                raw, strict=True, extra=None if strict else "ignore", context=context
            )
        except ValidationError as exc:
            return Validation(kind=ErrorKind.SCHEMA, problems=_pydantic_problems(exc, obj))
        return _semantic(value, self.check, context)


class JsonSchemaFile(Schema):
    """A schema given as a JSON Schema document (usually loaded from a file)."""

    def __init__(
        self,
        name: str,
        document: Mapping[str, Any],
        *,
        check: Check | None = None,
        source: Path | None = None,
    ) -> None:
        self.name = _checked_name(name)
        self.document = dict(document)
        self.source = source
        self.check = check
        where = f" ({source})" if source else ""
        validator_cls = jsonschema_validators.validator_for(
            self.document, default=jsonschema_validators.Draft202012Validator
        )
        try:
            validator_cls.check_schema(self.document)
        except jsonschema_exceptions.SchemaError as exc:
            raise UsageError(f"invalid JSON Schema{where}: {exc.message}") from exc
        _check_refs(self.document, where)
        # Nothing is ever fetched: every reference was checked to be local, and the registry
        # refuses to retrieve anything should one slip through.
        registry: Registry[Any] = Registry(retrieve=_never_fetch)  # type: ignore[call-arg]
        self.validator = validator_cls(self.document, registry=registry)
        self.description = str(self.document.get("description") or self.document.get("title", ""))

    @classmethod
    def load(cls, path: str | Path, *, name: str | None = None) -> JsonSchemaFile:
        """Read a JSON Schema file; raise `UsageError` (exit 2) if unreadable or invalid."""
        source = Path(path)
        try:
            document = json.loads(source.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"cannot read schema file {source}: {exc.strerror or exc}") from exc
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"schema file {source} is not valid JSON: {exc}") from exc
        if not isinstance(document, dict):
            raise UsageError(f"schema file {source} must hold a JSON object")
        stem = re.sub(r"[^a-z0-9._-]+", "-", source.stem.lower()).strip("-.") or "schema"
        return cls(name or stem, document, source=source)

    def json_schema(self) -> dict[str, Any]:
        return self.document

    def validate(
        self,
        raw: str,
        obj: dict[str, Any],
        *,
        strict: bool = True,
        context: Mapping[str, Any] | None = None,
    ) -> Validation:
        del raw
        errors = [
            error
            for error in self.validator.iter_errors(obj)
            if strict or error.validator != "additionalProperties"
        ]
        if errors:
            errors.sort(key=lambda error: [str(part) for part in error.absolute_path])
            problems = [
                f"{_json_path(error.absolute_path)}: {bounded(error.message, 300)}"
                for error in errors[:_MAX_PROBLEMS]
            ]
            if len(errors) > _MAX_PROBLEMS:
                problems.append(f"... and {len(errors) - _MAX_PROBLEMS} more")
            return Validation(kind=ErrorKind.SCHEMA, problems=tuple(problems))
        return _semantic(obj, self.check, context)


class SchemaRegistry:
    """Named schemas. `default_registry()` holds the built-ins; copy it to add your own."""

    def __init__(self, schemas: Iterable[Schema] = ()) -> None:
        self._schemas: dict[str, Schema] = {}
        for schema in schemas:
            self.register(schema)

    def register(self, schema: Schema, *, replace: bool = False) -> Schema:
        """Add a schema; a name already taken is an error unless `replace`."""
        if schema.name in self._schemas and not replace:
            raise UsageError(f"a schema named {schema.name!r} is already registered")
        self._schemas[schema.name] = schema
        return schema

    def register_model(
        self,
        name: str,
        type_: Any,
        *,
        check: Check | None = None,
        description: str = "",
        replace: bool = False,
    ) -> Schema:
        """Register a pydantic model (or annotated type) under `name`."""
        return self.register(
            ModelSchema(name, type_, check=check, description=description), replace=replace
        )

    def register_json_schema(self, name: str, path: str | Path, *, replace: bool = False) -> Schema:
        """Register the JSON Schema file at `path` under `name`."""
        return self.register(JsonSchemaFile.load(path, name=name), replace=replace)

    def get(self, name: str) -> Schema:
        """The schema called `name`, or `UnknownSchemaError` listing the known names."""
        try:
            return self._schemas[name]
        except KeyError:
            raise UnknownSchemaError(
                f"unknown schema {name!r}; known schemas: {', '.join(self.names())}"
            ) from None

    def resolve(self, name_or_path: str | Schema) -> Schema:
        """A registered name, an existing JSON Schema file path, or a `Schema` as is."""
        if isinstance(name_or_path, Schema):
            return name_or_path
        if name_or_path in self._schemas:
            return self._schemas[name_or_path]
        path = Path(name_or_path)
        if path.suffix == ".json" or path.exists():
            return JsonSchemaFile.load(path)
        return self.get(name_or_path)

    def names(self) -> list[str]:
        return sorted(self._schemas)

    def __contains__(self, name: object) -> bool:
        return name in self._schemas

    def copy(self) -> SchemaRegistry:
        return SchemaRegistry(self._schemas.values())


def _builtin_schemas() -> list[Schema]:
    return [
        ModelSchema("agent-result", AgentResultPayload, check=check_agent_result),
        ModelSchema("advice", AdvicePayload, check=check_advice),
        ModelSchema(
            "scratchpad",
            ScratchpadPayload,
            check=check_scratchpad,
            description="The notes file an implementer names in its agent-result.",
        ),
        ModelSchema(
            "supervisor-decision",
            SupervisorDecision,
            check=check_supervisor_decision,
            description="The supervisor's next step; required fields depend on `action`.",
        ),
        ModelSchema("code-review-result", CodeReviewResultPayload, check=check_code_review_result),
        ModelSchema("review-verdict", ReviewVerdictPayload, check=check_review_verdict),
        ModelSchema("verifier-verdict", VerifierVerdictPayload, check=check_verifier_verdict),
        ModelSchema("envelope", Envelope),
    ]


@functools.cache
def default_registry() -> SchemaRegistry:
    """The process-wide registry: the built-ins plus whatever was registered on it.

    Built on first use (building the validators costs a few milliseconds).
    """
    return SchemaRegistry(_builtin_schemas())


def registry_for(config: Config) -> SchemaRegistry:
    """The default registry plus the files named in `[handoff_validation] schemas`.

    Relative paths are taken from the project root. A missing or invalid file, or a name that
    is already taken, is a `ConfigError` naming the key and the config file.
    """
    extra = config.handoff_validation.schemas
    if not extra:
        return default_registry()
    registry = default_registry().copy()
    base = config.root or Path.cwd()
    for name, location in extra.items():
        path = Path(location).expanduser()
        try:
            registry.register(
                JsonSchemaFile.load(path if path.is_absolute() else base / path, name=name)
            )
        except UsageError as exc:
            raise ConfigError(
                str(exc),
                key=f"handoff_validation.schemas.{name}",
                path=str(config.source) if config.source else None,
            ) from exc
    return registry


_MAX_REF_NODES = 100_000


def _check_refs(document: Mapping[str, Any], where: str) -> None:
    """Every `$ref`/`$dynamicRef` must point inside the document: a remote reference would be
    fetched over the network (never), a dangling one fails only at validation time."""
    anchors: set[str] = set()
    refs: list[str] = []
    stack: list[Any] = [document]
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > _MAX_REF_NODES:
            raise UsageError(
                f"JSON Schema{where} is too large to check (over {_MAX_REF_NODES:,} nodes)"
            )
        if isinstance(node, dict):
            for key in ("$ref", "$dynamicRef"):
                if isinstance(node.get(key), str):
                    refs.append(node[key])
            for key in ("$anchor", "$dynamicAnchor"):
                if isinstance(node.get(key), str):
                    anchors.add(node[key])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    for ref in refs:
        if not ref.startswith("#"):
            raise UsageError(
                f"JSON Schema{where} has a remote $ref {ref!r}: mergegate never fetches "
                "schemas; inline it under $defs and refer to it as '#/$defs/...'"
            )
        if not _resolves(document, ref[1:], anchors):
            raise UsageError(f"JSON Schema{where} has a dangling $ref {ref!r}: nothing there")


def _resolves(document: Mapping[str, Any], fragment: str, anchors: set[str]) -> bool:
    if not fragment.startswith("/"):
        return fragment == "" or fragment in anchors
    node: Any = document
    for raw in fragment[1:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def _never_fetch(uri: str) -> Any:
    raise UsageError(f"JSON Schema reference {uri!r} is not in the document; nothing is fetched")


def _checked_name(name: str) -> str:
    if not _NAME.match(name):
        raise UsageError(
            f"invalid schema name {name!r}: use lowercase letters, digits, '.', '_' and '-'"
        )
    return name


def _semantic(value: Any, check: Check | None, context: Mapping[str, Any] | None) -> Validation:
    problems = tuple(check(value, context)) if check else ()
    if problems:
        return Validation(value=value, kind=ErrorKind.SEMANTIC, problems=problems)
    return Validation(value=value)


def _pydantic_problems(exc: ValidationError, obj: Mapping[str, Any]) -> tuple[str, ...]:
    errors = exc.errors(include_url=False)
    problems = []
    for err in errors[:_MAX_PROBLEMS]:
        where = _pydantic_path(err["loc"], obj)
        message = err["msg"]
        if err["type"] == "missing":
            problems.append(f"{where}: required field is missing")
        elif err["type"] == "extra_forbidden":
            problems.append(f"{where}: unknown field (not in the schema)")
        else:
            got = bounded(json.dumps(err["input"], default=str), _MAX_INPUT_REPR)
            problems.append(f"{where}: {message} (got {got})")
    if len(errors) > _MAX_PROBLEMS:
        problems.append(f"... and {len(errors) - _MAX_PROBLEMS} more")
    return tuple(problems)


def _pydantic_path(loc: Sequence[int | str], obj: Mapping[str, Any]) -> str:
    """Render a pydantic error location as a JSON path, naming a union's tag readably.

    For a discriminated union pydantic puts the tag value first (`('execute', 'task_id')`);
    that becomes `task_id (when action is "execute")`.
    """
    parts = list(loc)
    suffix = ""
    if parts and isinstance(parts[0], str) and parts[0] not in obj:
        tag_fields = [k for k, v in obj.items() if isinstance(v, str) and v == parts[0]]
        if tag_fields:
            suffix = f' (when {tag_fields[0]} is "{parts[0]}")'
            parts = parts[1:]
    return _json_path(parts) + suffix


def _json_path(parts: Iterable[int | str]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(the object)"
