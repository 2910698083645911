"""Reading source files the way the artifact checks need: language, stubs, exports, imports.

Pure functions over text, bounded and linear (regexes without nested quantifiers, one brace
scan per file); Python goes through `ast`. The code under verification is agent output and
untrusted: a file that cannot be analysed is reported as such, never taken as substantive.

Placeholder code (seed 004's "substantive" level) is, per language:

* any: an empty file, or one whose every non-blank line is a TODO/FIXME/placeholder note;
* Python: no statements beyond imports and docstrings; a function raising
  `NotImplementedError` (abstract methods, overloads and Protocol members aside); every
  function a stub (`pass`, `...`, a docstring);
* JS/TS: no code beyond imports/exports; `throw new Error("not implemented")`; every function
  body empty or a bare `return`/`return null`; a component whose every return is `null`, an
  empty element or placeholder text;
* Go: `panic("not implemented")`/`panic("TODO")`; every function body empty or a bare return.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from mergegate.verify._js import parse_js

__all__ = [
    "CODE_LANGUAGES",
    "StubReport",
    "exported_names",
    "find_stubs",
    "import_specifiers",
    "is_entry_point",
    "is_test",
    "language_of",
    "without_comments",
]

CODE_LANGUAGES = frozenset({"python", "js", "go", "rust", "other-code"})
_LANGUAGE = {
    ".py": "python",
    ".pyi": "python",
    **dict.fromkeys((".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts"), "js"),
    **dict.fromkeys((".vue", ".svelte"), "js"),
    ".go": "go",
    ".rs": "rust",
    **dict.fromkeys(
        (".java", ".kt", ".rb", ".php", ".swift", ".cs", ".c", ".h", ".cc", ".cpp", ".hpp"),
        "other-code",
    ),
}

_TODO_LINE = re.compile(
    r"^\W*(todo|fixme|xxx|tbd|placeholder|not (yet )?implemented|implement me|coming soon)\b",
    re.IGNORECASE,
)
_COMMENT_PREFIX = re.compile(r"^\s*(#|//|/\*|\*|<!--|--|;)+\s?")


def language_of(path: str) -> str:
    """`python`, `js`, `go`, `rust`, `other-code`, or `text` for anything else."""
    return _LANGUAGE.get(PurePosixPath(path).suffix.lower(), "text")


_TEST_NAME = re.compile(
    r"(^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[cm]?[jt]sx?$|^conftest\.py$)"
)
_ENTRY_NAMES = frozenset({"__main__.py", "setup.py", "manage.py", "main.rs", "build.rs"})
_ENTRY_DIRS = frozenset({"bin", "scripts", "cmd", "tests", "test", "__tests__", "e2e"})
_ENTRY_STEMS = frozenset({"main", "page", "layout", "route", "middleware"})


def is_test(path: str) -> bool:
    """A test file or one under a test folder (a stub there is a pending test, not code)."""
    pure = PurePosixPath(path)
    if _TEST_NAME.search(pure.name):
        return True
    return any(part in ("tests", "test", "__tests__", "e2e", "spec") for part in pure.parts[:-1])


def is_entry_point(path: str) -> bool:
    """A file nothing is expected to import: a test, a script, a program or route entry."""
    pure = PurePosixPath(path)
    name = pure.name
    if _TEST_NAME.search(name) or name in _ENTRY_NAMES or ".config." in name:
        return True
    if name.endswith(".d.ts") or any(part in _ENTRY_DIRS for part in pure.parts[:-1]):
        return True
    if pure.stem == "main" or (pure.stem in _ENTRY_STEMS and language_of(path) == "js"):
        return True
    # A package's top index (`index.ts`, `src/index.ts`) is what its manifest points at.
    return pure.stem == "index" and len(pure.parts) <= 2


# ---------------------------------------------------------------- stubs


@dataclass(frozen=True, slots=True)
class StubReport:
    """Why a file is placeholder code (`stub` set), and notes that do not decide it."""

    stub: str | None = None
    notes: tuple[str, ...] = ()


def find_stubs(path: str, text: str) -> StubReport:
    """Decide whether `text` (the file at `path`) is placeholder code."""
    if not text.strip():
        return StubReport("the file is empty")
    if _todo_only(text):
        return StubReport("the file holds only TODO/placeholder notes")
    language = language_of(path)
    if language == "python":
        return _python_stubs(text)
    if language == "js":
        return _braced_stubs(_strip_c_comments(text), js=True)
    if language == "go":
        return _braced_stubs(_strip_c_comments(text), js=False)
    return StubReport()


def _todo_only(text: str) -> bool:
    lines = [_COMMENT_PREFIX.sub("", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and line not in ("*/", "-->", '"""', "'''")]
    return bool(lines) and all(_TODO_LINE.match(line) for line in lines)


# ---------------------------------------------------------------- Python


def _python_stubs(text: str) -> StubReport:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return StubReport(f"the file does not parse as Python ({type(exc).__name__})")
    body = [s for s in tree.body if not _is_docstring(s)]
    if all(isinstance(s, ast.Import | ast.ImportFrom | ast.Pass) for s in body):
        return StubReport("no code beyond imports and docstrings")
    functions = list(_python_functions(tree))
    raising = [f.name for f, exempt in functions if not exempt and _raises_not_implemented(f)]
    if raising:
        return StubReport(f"raises NotImplementedError in {', '.join(raising[:5])}")
    concrete = [f for f, exempt in functions if not exempt]
    stubs = [f.name for f in concrete if _stub_body(f.body)]
    if concrete and len(stubs) == len(concrete) and not _has_other_code(tree):
        return StubReport(f"every function is a stub ({', '.join(stubs[:5])})")
    notes = (f"stub functions: {', '.join(stubs[:5])}",) if stubs else ()
    return StubReport(None, notes)


_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _python_functions(tree: ast.Module) -> list[tuple[_FunctionNode, bool]]:
    """(function, exempt) for every function; exempt: abstract, overload or a Protocol/ABC
    member, where a stub body is the point."""
    found: list[tuple[_FunctionNode, bool]] = []

    def visit(node: ast.AST, in_interface: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, in_interface or _is_interface(child))
            elif isinstance(child, _FunctionNode):
                found.append((child, in_interface or _is_abstract(child)))
                visit(child, in_interface)

    visit(tree, False)
    return found


def _names(nodes: list[ast.expr]) -> set[str]:
    names = set()
    for node in nodes:
        target = node.func if isinstance(node, ast.Call) else node
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)
    return names


def _is_interface(cls: ast.ClassDef) -> bool:
    return bool(_names(cls.bases) & {"Protocol", "ABC", "ABCMeta"})


def _is_abstract(fn: _FunctionNode) -> bool:
    return bool(_names(fn.decorator_list) & {"abstractmethod", "overload", "abstractproperty"})


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _stub_body(body: list[ast.stmt]) -> bool:
    rest = [s for s in body if not _is_docstring(s)]
    return all(
        isinstance(s, ast.Pass)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is ...)
        or _is_not_implemented(s)
        for s in rest
    )


def _is_not_implemented(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    return "NotImplementedError" in _names([stmt.exc])


def _raises_not_implemented(fn: _FunctionNode) -> bool:
    return any(_is_not_implemented(s) for s in ast.walk(fn) if isinstance(s, ast.stmt))


def _has_other_code(tree: ast.Module) -> bool:
    """Module-level code besides imports, docstrings, functions and stub-only classes."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom | _FunctionNode) or _is_docstring(stmt):
            continue
        if isinstance(stmt, ast.ClassDef) and all(
            isinstance(s, _FunctionNode) or _is_docstring(s) or isinstance(s, ast.Pass)
            for s in stmt.body
        ):
            continue
        return True
    return False


# ---------------------------------------------------------------- JS/TS and Go

_PLACEHOLDER_THROW = re.compile(
    r"\b(throw\s+new\s+\w*Error|panic)\s*\(\s*[\"'`][^\"'`\n]{0,80}?"
    r"(not\s+(yet\s+)?implemented|unimplemented|todo|stub)",
    re.IGNORECASE,
)
_FUNCTION_HEAD = re.compile(r"(=>|\bfunc\b[^{;\n]{0,300}?|\bfunction\b[^{;\n]{0,300}?)\s*\{")
_TRIVIAL_BODY = re.compile(
    r"^(return\s*(null|undefined|nil|\{\}|\[\]|\"\"|''|<>\s*</>|<\s*\w+\s*/>)?\s*;?)?$"
)
_IMPORTISH = re.compile(
    r"^\s*(import\b.*|export\s*\{[^}]*\}\s*(from\s*.+)?;?|export\s*\*.*|package\s+\w+|"
    r"\"use (client|server|strict)\";?|'use (client|server|strict)';?|[)}\s;]*)$"
)
_JSX_RETURN = re.compile(r"\breturn\s*\(?\s*(null|<[^;]{0,2000}>)\s*\)?\s*;?", re.DOTALL)
_EMPTY_JSX = re.compile(
    # a self-closing element counts as empty only without attributes: `<Comp {...props} />`
    # is a wrapper, not a placeholder
    r"^(null|<>\s*</>|<\s*[\w.]+\s*/>|<\s*([\w.]+)[^<>]*>\s*([^<>{}]{0,60})\s*</\s*\2\s*>)$",
    re.DOTALL,
)
_PLACEHOLDER_TEXT = re.compile(
    r"^(|todo\b.*|placeholder.*|coming soon.*|not (yet )?implemented.*|lorem ipsum.*|"
    r"\w+( component| page)?)$",
    re.IGNORECASE,
)


_PY_COMMENT = re.compile(r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|#[^\n]*""")


def without_comments(path: str, text: str) -> str:
    """`text` with its comments removed (strings kept; line breaks kept, so lines count the
    same): Python `#`, and `//`/`/* */` for the C-like languages."""
    language = language_of(path)
    if language == "python":
        return _PY_COMMENT.sub(lambda m: m.group(1) or "", text)
    if language in ("js", "go", "rust", "other-code"):
        return _strip_c_comments(text, keep_lines=True)
    return text


def _strip_c_comments(text: str, *, keep_lines: bool = False) -> str:
    """Remove `//` and `/* */` comments, keeping strings intact (a linear scan)."""
    out: list[str] = []
    i, n = 0, len(text)
    quote: str | None = None
    while i < n:
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
            out.append(c)
        elif text.startswith("//", i) and not text.startswith("://", i - 1):
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            stop = n if end == -1 else end + 2
            if keep_lines:
                out.append("\n" * text.count("\n", i, stop))
            i = stop
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _body_at(text: str, open_at: int) -> str | None:
    """The text between the brace at `open_at` and its match, or None if unbalanced."""
    depth = 0
    quote: str | None = None
    i = open_at
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1 : i]
        i += 1
    return None


_MAX_FUNCTIONS = 400
"""Function bodies examined per file: nested bodies are scanned again, so this bounds the work."""


def _braced_stubs(code: str, *, js: bool) -> StubReport:
    lines = [line for line in code.splitlines() if line.strip()]
    if all(_IMPORTISH.match(line) for line in lines):
        return StubReport("no code beyond imports, exports and the package line")
    throw = _PLACEHOLDER_THROW.search(code)
    if throw:
        return StubReport(f"placeholder: {' '.join(throw.group(0).split())[:80]}…")
    bodies = [
        body
        for _, m in zip(range(_MAX_FUNCTIONS), _FUNCTION_HEAD.finditer(code), strict=False)
        if (body := _body_at(code, m.end() - 1)) is not None
    ]
    trivial = [b for b in bodies if _TRIVIAL_BODY.match(" ".join(b.split()))]
    if bodies and len(trivial) == len(bodies):
        return StubReport(f"every function body is empty or a bare return ({len(bodies)})")
    if js and _placeholder_component(code):
        return StubReport("an empty component: every return is null, empty or placeholder text")
    notes = (f"{len(trivial)} of {len(bodies)} function bodies are empty",) if trivial else ()
    return StubReport(None, notes)


def _placeholder_component(code: str) -> bool:
    returns = [" ".join(m.group(1).split()) for m in _JSX_RETURN.finditer(code)]
    if not returns or not any(r.startswith("<") for r in returns):
        return False
    for value in returns:
        match = _EMPTY_JSX.match(value)
        if match is None:
            return False
        inner = match.group(3)
        if inner is not None and not _PLACEHOLDER_TEXT.match(inner.strip()):
            return False
    return True


# ---------------------------------------------------------------- exports


def exported_names(path: str, text: str, wanted: tuple[str, ...]) -> dict[str, str | None]:
    """For each wanted name: where it is exported (`line N`), or None when it is not.

    A name `default` or `default NAME` asks for a JS/TS default export (of that name).
    Languages without a notion of export recognised here answer None for every name.
    """
    language = language_of(path)
    if language == "js":
        return {name: _js_export(text, name, path) for name in wanted}
    finder = {"python": _python_export, "go": _go_export, "rust": _rust_export}
    find = finder.get(language)
    if find is None:
        return dict.fromkeys(wanted)
    return {name: find(text, name) for name in wanted}


def _line_of(text: str, offset: int) -> str:
    return f"line {text.count(chr(10), 0, offset) + 1}"


def _python_export(text: str, name: str) -> str | None:
    pattern = re.compile(
        rf"^(?:async\s+def|def|class)\s+{re.escape(name)}\b|^{re.escape(name)}\s*[:=]|"
        rf"^from\s+\S+\s+import\s+[^#\n]*\b{re.escape(name)}\b|"
        rf"__all__[^\]]*[\"']{re.escape(name)}[\"']",
        re.MULTILINE,
    )
    match = pattern.search(text)
    return _line_of(text, match.start()) if match else None


def _js_export(text: str, name: str, path: str = "x.tsx") -> str | None:
    parsed = parse_js(path, text)
    if parsed is not None and not parsed.has_error:
        return _parsed_js_export(parsed.exports, parsed.default_name, name) or _cjs_export(
            text, name
        )
    return _js_export_by_text(text, name)


def _parsed_js_export(exports: dict[str, int], default_name: str | None, name: str) -> str | None:
    default = _DEFAULT.match(name)
    if default:
        symbol = default.group(1)
        line = exports.get("default")
        if line is None or (symbol and symbol != default_name):
            return None
        return f"line {line}"
    line = exports.get(name)
    return f"line {line}" if line is not None else None


def _cjs_export(text: str, name: str) -> str | None:
    escaped = re.escape(name)
    pattern = rf"\bexports\.{escaped}\s*=|module\.exports\s*=\s*\{{[^}}]*\b{escaped}\b"
    match = re.search(pattern, text)
    return _line_of(text, match.start()) if match else None


def _js_export_by_text(text: str, name: str) -> str | None:
    """A file the parser could not read whole: the export forms matched on its text."""
    default = _DEFAULT.match(name)
    if default:
        symbol = default.group(1)
        target = (
            rf"\s+(?:(?:async\s+)?function\*?\s+|class\s+)?{re.escape(symbol)}\b" if symbol else ""
        )
        pattern = rf"\bexport\s+default{target}|\bexport\s*\{{[^}}]*\bas\s+default\b"
    else:
        escaped = re.escape(name)
        pattern = (
            r"\bexport\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?"
            rf"(?:function\*?|class|const|let|var|interface|type|enum|namespace)\s+{escaped}\b|"
            rf"\bexport\s*\{{[^}}]*\b{escaped}\b[^}}]*\}}|"
            rf"\bexports\.{escaped}\s*=|module\.exports\s*=\s*\{{[^}}]*\b{escaped}\b"
        )
    match = re.search(pattern, text)
    return _line_of(text, match.start()) if match else None


_DEFAULT = re.compile(r"^default(?:\s+([A-Za-z_$][\w$]*))?$")


def _go_export(text: str, name: str) -> str | None:
    if not name[:1].isupper():
        return None  # Go exports capitalised names only
    escaped = re.escape(name)
    single = re.compile(
        rf"^(?:func\s+(?:\([^)]*\)\s*)?|type\s+|var\s+|const\s+){escaped}\b", re.MULTILINE
    )
    match = single.search(text)
    if match:
        return _line_of(text, match.start())
    for block in re.finditer(r"^(?:var|const|type)\s*\(", text, re.MULTILINE):
        close = text.find("\n)", block.end())
        segment = text[block.end() : close if close != -1 else len(text)]
        inner = re.search(rf"^\s+{escaped}\b", segment, re.MULTILINE)
        if inner:
            return _line_of(text, block.end() + inner.start())
    return None


def _rust_export(text: str, name: str) -> str | None:
    pattern = (
        r"\bpub(?:\([^)]*\))?\s+(?:async\s+)?(?:fn|struct|enum|trait|const|static|type|mod)\s+"
        rf"{re.escape(name)}\b"
    )
    match = re.search(pattern, text)
    return _line_of(text, match.start()) if match else None


# ---------------------------------------------------------------- imports

_JS_IMPORT = re.compile(
    r"(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bexport\s*\*\s*from\s*)[\"']([^\"'\n]{1,300})[\"']"
)
_GO_IMPORT_BLOCK = re.compile(r"^import\s*\((.*?)^\)", re.MULTILINE | re.DOTALL)
_GO_IMPORT_LINE = re.compile(r"^import\s+(?:[\w.]+\s+)?\"([^\"]+)\"", re.MULTILINE)
_GO_SPEC = re.compile(r"\"([^\"\n]+)\"")


def import_specifiers(path: str, text: str) -> list[tuple[str, int]]:
    """The modules `text` imports, as written, with their 1-based line.

    Python: absolute dotted names, relative ones resolved against `path`'s package.
    """
    language = language_of(path)
    if language == "python":
        return _python_imports(path, text)
    if language == "js":
        parsed = parse_js(path, text)
        if parsed is not None:
            return parsed.imports
        return [(m.group(1), text.count("\n", 0, m.start()) + 1) for m in _JS_IMPORT.finditer(text)]
    if language == "go":
        found = [
            (m.group(1), text.count("\n", 0, m.start()) + 1) for m in _GO_IMPORT_LINE.finditer(text)
        ]
        for block in _GO_IMPORT_BLOCK.finditer(text):
            for spec in _GO_SPEC.finditer(block.group(1)):
                found.append(
                    (spec.group(1), text.count("\n", 0, block.start(1) + spec.start()) + 1)
                )
        return found
    return []


def _python_imports(path: str, text: str) -> list[tuple[str, int]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    package = list(PurePosixPath(path).with_suffix("").parts[:-1])
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute_module(package, node.module, node.level)
            if base:
                found.append((base, node.lineno))
            found.extend(
                (f"{base}.{alias.name}" if base else alias.name, node.lineno)
                for alias in node.names
            )
    return found


def _absolute_module(package: list[str], module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    keep = package[: len(package) - (level - 1)] if level - 1 <= len(package) else []
    return ".".join([*keep, *([module] if module else [])])
