"""`mergegate parse`'s work without click: read the inputs, decide each, print, exit code.

The click command (`cli.parse`) and the click-free reading of a plain `mergegate parse` argv
(`cli._percall`, for pipelines that run it on every step) both call `decide_files`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from mergegate.decisions import ExitCode, worst_exit_code
from mergegate.verdicts import parse_verdict

__all__ = ["decide_files"]

_MAX_READ_BYTES = 64 * 1024 * 1024
# Invisible and direction-changing characters: shown escaped so the output cannot lie.
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
)


def decide_files(
    files: Sequence[str],
    dialect: str | None,
    review_id: str | None,
    fmt: str,
    *,
    strict: bool = False,
) -> ExitCode:
    """Decide each file (`-`: stdin; none: stdin), print the verdicts in `fmt` (text, json,
    jsonl) and return the worst exit code (an unreadable file: usage). `strict` is
    `parse_verdict`'s strict reading."""
    names = tuple(files) or ("-",)
    results: list[dict[str, Any]] = []
    codes: list[ExitCode] = []
    for name in names:
        text, error = _read(name)
        if error is not None:
            results.append({"file": name, "error": error})
            codes.append(ExitCode.USAGE)
            continue
        verdict = parse_verdict(text, dialect=dialect, review_id=review_id, strict=strict)
        results.append({"file": name, **verdict.to_dict()})
        codes.append(verdict.decision.exit_code)
    _emit(results, fmt, single=len(names) == 1)
    return worst_exit_code(codes)


def _echo(line: str, *, err: bool = False) -> None:
    # As click.echo writes text: the line, a newline, a flush. (Its stripping of terminal
    # escapes never applies here: `_safe` and json.dumps escape every control character.)
    stream = sys.stderr if err else sys.stdout
    stream.write(line + "\n")
    stream.flush()


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
        _echo(json.dumps(payload, ensure_ascii=False, indent=2))
    elif fmt == "jsonl":
        for item in results:
            _echo(json.dumps(item, ensure_ascii=False))
    else:
        for item in results:
            _echo(_text(item))
    for item in results:
        if "error" in item:
            _echo(f"mergegate: error: {item['error']}", err=True)


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
