"""`mergegate handoff check` and `mergegate schema`: validate a handoff, print a schema.

Thin: read the input, call `mergegate.handoff`, print, exit. Exit codes: 0 valid, 3 invalid
handoff, 2 unknown schema or unreadable input (raised as `UsageError`, turned into exit 2 by
the command group).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import click

from mergegate.cli._app import format_option
from mergegate.cli._table import table_lines
from mergegate.config import load_config
from mergegate.decisions import ExitCode
from mergegate.errors import UsageError
from mergegate.handoff import Extraction, Schema, extract, registry_for
from mergegate.plans import Plan
from mergegate.verdicts import verdict_object_example, verdict_object_schema

__all__ = ["handoff", "schema"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
PLAN_SCHEMA = "plan"
"""`mergegate schema plan`: the plan model, beside the handoff schemas."""
VERDICT_SCHEMA = "verdict"
"""`mergegate schema verdict`: the verdict object every prompted reviewer answers with."""


@click.group("handoff")
def handoff() -> None:
    """Typed JSON handoffs between agents and components."""


@handoff.command("check")
@click.option(
    "--schema",
    "schema_ref",
    required=True,
    metavar="NAME|PATH",
    help="A schema name (list them with `mergegate schema`) or a JSON Schema file.",
)
@format_option("text for people; json prints {ok, schema, data, error}.")
@click.option(
    "--context",
    "context_pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="Context for consistency checks, e.g. review_id=abc123 (repeatable).",
)
@click.argument("file", default="-", metavar="[FILE|-]")
@click.pass_context
def check(
    ctx: click.Context, schema_ref: str, fmt: str, context_pairs: tuple[str, ...], file: str
) -> None:
    """Validate the JSON handoff in FILE (default: stdin) against a schema.

    The last JSON object in the text decides; prose and code fences around it are fine.
    Exit 0 when valid, 3 when invalid, 2 for an unknown schema or an unreadable file.
    """
    config = load_config()
    schema = registry_for(config).resolve(schema_ref)
    text = _read_text(file)
    result = extract(
        text,
        schema,
        context=_parse_context(context_pairs),
        strict=config.handoff_validation.strict_schema_validation,
    )
    if fmt == "json":
        click.echo(json.dumps(_as_json(result, schema), indent=2, ensure_ascii=False))
    else:
        click.echo(_as_text(result, schema))
    ctx.exit(int(ExitCode.OK if result.ok else ExitCode.UNDECIDABLE))


@click.command("schema")
@click.argument("name", required=False)
@click.option(
    "--template",
    is_flag=True,
    help="Print the format template used in retry prompts instead of the JSON Schema.",
)
def schema(name: str | None, template: bool) -> None:
    """Print the JSON Schema of a handoff schema NAME; without NAME, list the names.

    `plan` is the schema of the plan model (`mergegate plan show --format json`); `verdict`
    is the verdict object a reviewer mergegate prompts answers with (`--template`: an example).
    """
    registry = registry_for(load_config())
    if name is None:
        rows = [[known, _first_line(registry.get(known).description)] for known in registry.names()]
        rows.append([PLAN_SCHEMA, "the plan model (mergegate plan show --format json)"])
        rows.append([VERDICT_SCHEMA, "the verdict object a prompted reviewer answers with"])
        for line in table_lines(["schema", "description"], rows, header=False):
            click.echo(line)
        return
    if name == VERDICT_SCHEMA and VERDICT_SCHEMA not in registry.names():
        if template:
            click.echo(verdict_object_example("REVIEW_ID", "SCOPE"))
        else:
            click.echo(json.dumps(verdict_object_schema(), indent=2, ensure_ascii=False))
        return
    if name == PLAN_SCHEMA and PLAN_SCHEMA not in registry.names():
        if template:
            raise UsageError("the plan schema has no retry template; see docs/plans.md")
        click.echo(json.dumps(Plan.model_json_schema(by_alias=True), indent=2, ensure_ascii=False))
        return
    found = registry.get(name)
    if template:
        click.echo(found.template())
    else:
        click.echo(json.dumps(found.json_schema(), indent=2, ensure_ascii=False))


def _first_line(text: str) -> str:
    lines = text.splitlines()
    return lines[0] if lines else ""


def _read_text(file: str) -> str:
    if file == "-":
        data = sys.stdin.buffer.read()
        where = "standard input"
    else:
        try:
            data = Path(file).read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read {file}: {exc.strerror or exc}") from exc
        where = file
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where} is not UTF-8 text: {exc}") from exc


def _parse_context(pairs: tuple[str, ...]) -> dict[str, str]:
    context = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--context expects KEY=VALUE, got {pair!r}")
        context[key] = value
    return context


def _as_json(result: Extraction, schema: Schema) -> dict[str, Any]:
    return {
        "ok": result.ok,
        "schema": schema.name,
        "data": schema.dump(result.value) if result.ok else None,
        "error": result.error.model_dump(mode="json") if result.error else None,
    }


def _as_text(result: Extraction, schema: Schema) -> str:
    if result.ok:
        data = json.dumps(schema.dump(result.value), indent=2, ensure_ascii=True)
        return f"valid {schema.name} handoff\n{data}"
    assert result.error is not None
    # Details can quote the agent's output: never let it drive the terminal.
    details = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", result.error.details)
    return f"invalid {schema.name} handoff ({result.error.type.value})\n{details}"
