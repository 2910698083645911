"""`mergegate parse`: decide reviewer outputs and print the verdicts."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from mergegate.cli._app import format_option
from mergegate.decisions import ExitCode, worst_exit_code
from mergegate.errors import UsageError
from mergegate.verdicts import DIALECTS, parse_verdict

__all__ = ["parse"]

_MAX_READ_BYTES = 64 * 1024 * 1024
# Invisible and direction-changing characters: shown escaped so the output cannot lie.
_INVISIBLE = frozenset("\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e")
_INVISIBLE |= frozenset("\u2066\u2067\u2068\u2069\ufeff")
# Invisible and direction-changing characters: shown escaped so the output cannot lie.
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
)


@click.command("parse")
@click.argument("files", nargs=-1, metavar="[FILE ...|-]")
@click.option(
    "--dialect",
    type=click.Choice(DIALECTS),
    default=None,
    help="Only look for verdicts in this dialect (default: try them all).",
)
@click.option(
    "--review-id",
    default=None,
    metavar="ID",
    help="The nonce the reviewer was asked to echo: only a JSON trailer carrying it may approve.",
)
@format_option(
    "text for people; json: one object (an array for several files); jsonl: one per line.",
    more=("jsonl",),
)
@click.pass_context
def parse(
    ctx: click.Context, files: tuple[str, ...], dialect: str | None, review_id: str | None, fmt: str
) -> None:
    """Read reviewer output (files, or - / nothing for stdin) and print each verdict.

    \b
    Exit codes: 0 every input approves; 1 a real no (fixes or reject);
    3 malformed or empty; 2 an unreadable file (the others are still reported)
    or a bad argument (an empty --review-id).
    """
    if review_id is not None and not review_id.strip():
        raise UsageError("--review-id must not be empty: give the nonce the reviewer was asked for")
    names = files or ("-",)
    results: list[dict[str, Any]] = []
    codes: list[ExitCode] = []
    for name in names:
        text, error = _read(name)
        if error is not None:
            results.append({"file": name, "error": error})
            codes.append(ExitCode.USAGE)
            continue
        verdict = parse_verdict(text, dialect=dialect, review_id=review_id)
        results.append({"file": name, **verdict.to_dict()})
        codes.append(verdict.decision.exit_code)
    _emit(results, fmt, single=len(names) == 1)
    ctx.exit(int(worst_exit_code(codes)))


def _read(name: str) -> tuple[str, str | None]:
    try:
        if name == "-":
            data = sys.stdin.buffer.read(_MAX_READ_BYTES)
        else:
            with open(name, "rb") as handle:
                data = handle.read(_MAX_READ_BYTES)
    except OSError as exc:
        return "", f"cannot read {name}: {exc.strerror or exc}"
    return data.decode("utf-8", errors="replace"), None


def _emit(results: list[dict[str, Any]], fmt: str, *, single: bool) -> None:
    if fmt == "json":
        payload: Any = results[0] if single else results
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
    elif fmt == "jsonl":
        for item in results:
            click.echo(json.dumps(item, ensure_ascii=False))
    else:
        for item in results:
            click.echo(_text(item))
    for item in results:
        if "error" in item:
            click.echo(f"mergegate: error: {item['error']}", err=True)


def _text(item: dict[str, Any]) -> str:
    name = _safe(item["file"])
    if "error" in item:
        return f"{name}: unreadable — {_safe(item['error'])}"
    lines = [
        f"{name}: {item['decision'].upper()}" + (f" ({item['dialect']})" if item["dialect"] else "")
    ]
    evidence = item["evidence"]
    if evidence:
        lines.append(f"  line {evidence['line']}: {_safe(evidence['text'])}")
    lines.extend(f"  why: {_safe(reason)}" for reason in item["reasons"])
    lines.extend(f"  warning: {_safe(warning)}" for warning in item["warnings"])
    if item["findings"]:
        lines.append(f"  findings: {len(item['findings'])}")
        for finding in item["findings"][:10]:
            where = f" ({_safe(finding['file'])})" if finding["file"] else ""
            title = _safe(finding["title"])[:100]
            lines.append(f"    [{finding['severity']}] {finding['id']} {title}{where}")
    return "\n".join(lines)


def _safe(text: object) -> str:
    """Escape control characters and terminal escapes from untrusted text before printing."""
    out: list[str] = []
    for ch in str(text):
        code = ord(ch)
        if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or ch in "\u2028\u2029":
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        elif ch in _INVISIBLE:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)
