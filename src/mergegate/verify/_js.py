"""JavaScript and TypeScript read as code: imports and exports from a real parser.

A regular expression over JS/TS text cannot tell code from a comment, a string or a template
literal (`// import x from "./orphan"` is not wiring), and breaks on multi-line forms. The
parser is tree-sitter with the TypeScript grammars (`tree-sitter-typescript`: TypeScript for
`.ts`/`.mts`/`.cts`, TSX for everything else, which also reads plain JavaScript and JSX):
maintained, error-tolerant (a file with a syntax error still yields the imports around it),
and linear in the input (a pathological megabyte parses in about half a second; files over
1 MB are not parsed). A file the parser cannot read answers None, and callers fall back to
what they can say without it. (tree-sitter's cancellation callback is not used: in 0.25 it
crashes the interpreter when it cancels.)

Files are untrusted: the tree walk is iterative and capped in nodes, so a deeply nested or
huge file cannot exhaust the stack or the clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath

import tree_sitter
import tree_sitter_typescript

__all__ = ["JsModule", "parse_js"]

_MAX_NODES = 400_000
_MAX_BYTES = 1 << 20
_DECLARATIONS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "module",
        "internal_module",
        "function_signature",
        "ambient_declaration",
    }
)


@dataclass
class JsModule:
    """What a JS/TS file imports and exports, with 1-based lines."""

    imports: list[tuple[str, int]] = field(default_factory=list)
    """Module specifiers as written: `import … from`, `export … from`, `import()`,
    `require()`, `import x = require()`."""
    exports: dict[str, int] = field(default_factory=dict)
    """Exported names (`default` for a default export) and the line of each."""
    default_name: str | None = None
    """The name of a default-exported function or class, when it has one."""
    has_error: bool = False


@cache
def _parser(tsx: bool) -> tree_sitter.Parser:
    grammar = tree_sitter_typescript
    language = grammar.language_tsx() if tsx else grammar.language_typescript()
    return tree_sitter.Parser(tree_sitter.Language(language))


def _is_tsx(path: str) -> bool:
    return PurePosixPath(path).suffix.lower() not in (".ts", ".mts", ".cts")


def parse_js(path: str, text: str) -> JsModule | None:
    """Imports and exports of the JS/TS file `path` holding `text`; None if unparseable."""
    data = text.encode("utf-8", "replace")
    if len(data) > _MAX_BYTES:
        return None
    try:
        tree = _parser(_is_tsx(path)).parse(data)
    except (ValueError, RuntimeError):
        return None
    module = JsModule(has_error=tree.root_node.has_error)
    stack = [tree.root_node]
    seen = 0
    while stack and seen < _MAX_NODES:
        node = stack.pop()
        seen += 1
        _visit(node, module)
        stack.extend(reversed(node.children))
    return module


def _line(node: tree_sitter.Node) -> int:
    return node.start_point[0] + 1


def _string(node: tree_sitter.Node | None) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    raw = (node.text or b"").decode("utf-8", "replace")
    if len(raw) < 2 or "${" in raw:
        return None
    return raw[1:-1]


def _visit(node: tree_sitter.Node, module: JsModule) -> None:
    kind = node.type
    if kind == "import_statement":
        _import_statement(node, module)
    elif kind == "export_statement":
        _export_statement(node, module)
    elif kind == "call_expression":
        _call(node, module)


def _import_statement(node: tree_sitter.Node, module: JsModule) -> None:
    source = _string(node.child_by_field_name("source"))
    if source is None:
        for child in node.children:
            if child.type == "import_require_clause":  # import x = require("y")
                source = _string(child.child_by_field_name("source"))
    if source is not None:
        module.imports.append((source, _line(node)))


def _text(node: tree_sitter.Node | None) -> str | None:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else None


def _export_statement(node: tree_sitter.Node, module: JsModule) -> None:
    source = _string(node.child_by_field_name("source"))
    if source is not None:
        module.imports.append((source, _line(node)))
    declaration = node.child_by_field_name("declaration")
    if any(child.type == "default" for child in node.children):
        module.exports.setdefault("default", _line(node))
        target = declaration or node.child_by_field_name("value")
        name = _text(target.child_by_field_name("name")) if target is not None else None
        module.default_name = name or module.default_name
        return
    if declaration is not None:
        for declared in _declared_names(declaration):
            module.exports.setdefault(declared, _line(node))
    for child in node.children:
        for name, line in _clause_names(child):
            module.exports.setdefault(name, line)


def _clause_names(child: tree_sitter.Node) -> list[tuple[str, int]]:
    """Names an `export { a, b as c }` clause or an `export * as ns` exports (both the
    local name and the alias: a plan may name either)."""
    found: list[tuple[str, int]] = []
    if child.type == "export_clause":
        for spec in child.children:
            if spec.type == "export_specifier":
                for field_name in ("name", "alias"):
                    name = _text(spec.child_by_field_name(field_name))
                    if name:
                        found.append((name, _line(spec)))
    elif child.type == "namespace_export":  # export * as ns from "x"
        found += [
            (t, _line(child)) for p in child.children if p.type == "identifier" and (t := _text(p))
        ]
    return found


def _declared_names(declaration: tree_sitter.Node) -> list[str]:
    if declaration.type in _DECLARATIONS:
        name = declaration.child_by_field_name("name")
        return [name.text.decode("utf-8", "replace")] if name is not None and name.text else []
    if declaration.type in ("lexical_declaration", "variable_declaration"):
        names = []
        for child in declaration.children:
            if child.type == "variable_declarator":
                name = child.child_by_field_name("name")
                if name is not None and name.type == "identifier" and name.text:
                    names.append(name.text.decode("utf-8", "replace"))
        return names
    return []


def _call(node: tree_sitter.Node, module: JsModule) -> None:
    function = node.child_by_field_name("function")
    if function is None or function.text not in (b"require", b"import"):
        return
    arguments = node.child_by_field_name("arguments")
    named = arguments.named_children if arguments is not None else []
    source = _string(named[0] if named else None)
    if source is not None:
        module.imports.append((source, _line(node)))
