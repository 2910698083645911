"""The scripted "sloppy implementer"'s answers: right on half the problems, subtly wrong on the
rest, from a fixed list (`sloppy_list.json`, one mutation of the canonical solution per
problem, each checked to fail the hidden tests).

A mutation is one small change of the kind people and models make: a loop bound one short
(`range(a, b)` → `range(a, b - 1)`), a boundary comparison (`<` ↔ `<=`), an integer off by one,
a wrong sign (`+` ↔ `-`), `min` ↔ `max`, `and` ↔ `or`, a flipped boolean return, a dropped
`not`. `write_list` picks, for each problem, the first mutation in that order whose module
compiles and fails the hidden tests, and records it (`op`, `site`, a description); the bench
applies the recorded one and checks again that it fails. Which half of the problems gets the
right answer is drawn from `--seed` (the same draw for every arm).

Right and wrong answers are both the prompt followed by `ast.unparse` of the function's body,
so formatting never tells them apart.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from gate_value.problems import Problem

LIST_FILE = Path(__file__).with_name("sloppy_list.json")


@dataclass(frozen=True)
class Mutation:
    op: str
    site: int
    """The index among the nodes `op` can change, in `ast.walk` order over the body."""
    description: str


def _flip_compare(node: ast.AST) -> str | None:
    swaps = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in swaps:
        old = node.ops[0]
        node.ops[0] = swaps[type(old)]()
        return f"comparison {_op_text(old)} became {_op_text(node.ops[0])}"
    return None


def _range_stop(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and 1 <= len(node.args) <= 2
    ):
        stop = node.args[-1]
        node.args[-1] = ast.BinOp(left=stop, op=ast.Sub(), right=ast.Constant(1))
        return "a range() stops one short"
    return None


def _int_plus_one(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        node.value += 1
        return f"the constant {node.value - 1} became {node.value}"
    return None


def _sign(node: ast.AST) -> str | None:
    swaps = {ast.Add: ast.Sub, ast.Sub: ast.Add}
    if isinstance(node, ast.BinOp) and type(node.op) in swaps:
        old = node.op
        node.op = swaps[type(old)]()
        return f"{_op_text(old)} became {_op_text(node.op)}"
    return None


def _operator(node: ast.AST) -> str | None:
    swaps = {ast.Mult: ast.Add, ast.Div: ast.FloorDiv, ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv}
    if isinstance(node, ast.BinOp) and type(node.op) in swaps:
        old = node.op
        node.op = swaps[type(old)]()
        return f"{_op_text(old)} became {_op_text(node.op)}"
    return None


def _float_constant(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and type(node.value) is float:
        node.value = node.value + 1.0
        return f"the constant {node.value - 1.0} became {node.value}"
    return None


def _min_max(node: ast.AST) -> str | None:
    swaps = {"min": "max", "max": "min"}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in swaps:
        old = node.func.id
        node.func.id = swaps[old]
        return f"{old}() became {node.func.id}()"
    return None


def _membership(node: ast.AST) -> str | None:
    return _swap_compare(node, {ast.In: ast.NotIn, ast.NotIn: ast.In}, "membership test negated")


def _equality(node: ast.AST) -> str | None:
    return _swap_compare(node, {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}, "equality test negated")


def _invert(node: ast.AST) -> str | None:
    swaps = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
    return _swap_compare(node, swaps, "comparison inverted")


def _swap_compare(node: ast.AST, swaps: dict[type, type], what: str) -> str | None:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in swaps:
        node.ops[0] = swaps[type(node.ops[0])]()
        return what
    return None


def _string(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Constant) or type(node.value) is not str:
        return None
    old = node.value
    if old in ("", " "):
        node.value = " " if old == "" else ""
    elif old.upper() != old:
        node.value = old.upper()
    elif old.lower() != old:
        node.value = old.lower()
    else:
        return None
    return f"the string {old!r} became {node.value!r}"


def _method(node: ast.AST) -> str | None:
    swaps = {
        "lower": "upper",
        "upper": "lower",
        "swapcase": "lower",
        "startswith": "endswith",
        "endswith": "startswith",
        "sorted": "list",
        "isupper": "islower",
        "islower": "isupper",
    }
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute) and func.attr in swaps:
        old, func.attr = func.attr, swaps[func.attr]
        return f".{old}() became .{func.attr}()"
    if isinstance(func, ast.Name) and func.id == "sorted":
        func.id = "list"
        return "sorted() became list()"
    return None


def _and_or(node: ast.AST) -> str | None:
    if isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return "and/or swapped"
    return None


def _return_bool(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Return)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, bool)
    ):
        node.value.value = not node.value.value
        return f"a `return {not node.value.value}` became `return {node.value.value}`"
    return None


def _drop_not(node: ast.AST) -> str | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node.op = ast.UAdd()  # replaced below: `+x` would change the meaning differently
        return "a `not` was dropped"
    return None


OPERATORS: dict[str, Callable[[ast.AST], str | None]] = {
    "range-stop": _range_stop,
    "boundary": _flip_compare,
    "off-by-one": _int_plus_one,
    "sign": _sign,
    "min-max": _min_max,
    "operator": _operator,
    "float": _float_constant,
    "and-or": _and_or,
    "membership": _membership,
    "equality": _equality,
    "invert": _invert,
    "string": _string,
    "method": _method,
    "return-bool": _return_bool,
    "drop-not": _drop_not,
}
"""In the order `write_list` tries them: the subtler kinds first."""


def _op_text(op: ast.AST) -> str:
    texts = {
        ast.Lt: "<",
        ast.LtE: "<=",
        ast.Gt: ">",
        ast.GtE: ">=",
        ast.Add: "+",
        ast.Sub: "-",
        ast.Mult: "*",
        ast.Div: "/",
        ast.FloorDiv: "//",
        ast.Mod: "%",
    }
    return texts.get(type(op), type(op).__name__)


class _UnwrapUAddNot(ast.NodeTransformer):
    """`_drop_not` marks the node; this replaces the marked `UnaryOp` by its operand."""

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return node.operand if isinstance(node.op, ast.UAdd) and _marked(node) else node


def _marked(node: ast.UnaryOp) -> bool:
    return bool(getattr(node, "_gate_value_dropped", False))


def _function(module: ast.Module, problem: Problem) -> ast.FunctionDef:
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == problem.entry_point:
            return node
    raise ValueError(f"{problem.task_id}: no function {problem.entry_point}")


def _body_statements(function: ast.FunctionDef) -> list[ast.stmt]:
    """The function's statements after its docstring: what the implementer writes."""
    body = function.body
    has_doc = body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    return body[1:] if has_doc else body


def render(problem: Problem, body: list[ast.stmt]) -> str:
    """The prompt followed by `body`, unparsed and indented under the function."""
    lines = []
    for statement in body:
        lines += ["    " + line if line else line for line in ast.unparse(statement).splitlines()]
    return problem.prompt.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


def right_answer(problem: Problem) -> str:
    module = ast.parse(problem.reference())
    return render(problem, _body_statements(_function(module, problem)))


def _sites(body: list[ast.stmt], op: str) -> Iterator[ast.AST]:
    for statement in body:
        for node in ast.walk(statement):
            probe = copy.deepcopy(node)
            if OPERATORS[op](probe) is not None:
                yield node


def apply_mutation(problem: Problem, op: str, site: int) -> tuple[str, str] | None:
    """(the wrong module, what changed), or None when `op` has no site `site` here."""
    module = ast.parse(problem.reference())
    body = _body_statements(_function(module, problem))
    for index, node in enumerate(_sites(body, op)):
        if index == site:
            description = OPERATORS[op](node)
            if op == "drop-not":
                node._gate_value_dropped = True  # type: ignore[attr-defined]
                body = [_UnwrapUAddNot().visit(s) for s in body]
            assert description is not None
            return render(problem, [ast.fix_missing_locations(s) for s in body]), description
    return None


def candidates(problem: Problem) -> Iterator[tuple[str, int]]:
    """Every (op, site) of the problem, in the order `write_list` tries them."""
    module = ast.parse(problem.reference())
    body = _body_statements(_function(module, problem))
    for op in OPERATORS:
        for site, _ in enumerate(_sites(body, op)):
            yield op, site


def choose_mutation(problem: Problem, fails_hidden: Callable[[str], bool]) -> Mutation | None:
    """The first candidate whose module compiles and fails the hidden tests."""
    for op, site in candidates(problem):
        applied = apply_mutation(problem, op, site)
        if applied is None:
            continue
        text, description = applied
        try:
            compile(text, "solution.py", "exec")
        except SyntaxError:
            continue
        if fails_hidden(text):
            return Mutation(op=op, site=site, description=description)
    return None


def write_list(problems: list[Problem], fails_hidden: Callable[[Problem, str], bool]) -> None:
    """Regenerate `sloppy_list.json` (run once; the file is committed). Hand-written entries
    (`op` "replace": `old => new` in the right answer, for the few problems no operator
    breaks) are kept."""
    kept = {k: m for k, m in read_list().items() if m.op == "replace"} if LIST_FILE.exists() else {}
    entries = {}
    for problem in problems:
        if problem.task_id in kept:
            hand = kept[problem.task_id]
            entries[problem.task_id] = {"op": hand.op, "site": hand.site, "what": hand.description}
            continue
        found = choose_mutation(problem, lambda text, p=problem: fails_hidden(p, text))
        if found is None:
            print(f"{problem.task_id}: no mutation fails the hidden tests")
            continue
        entries[problem.task_id] = {"op": found.op, "site": found.site, "what": found.description}
    lines = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in entries.items()]
    LIST_FILE.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


def read_list() -> dict[str, Mutation]:
    raw = json.loads(LIST_FILE.read_text(encoding="utf-8"))
    return {k: Mutation(op=v["op"], site=v["site"], description=v["what"]) for k, v in raw.items()}


def wrong_answer(problem: Problem, mutation: Mutation) -> str:
    if mutation.op == "replace":
        old, new = mutation.description.split(" => ", 1)
        right = right_answer(problem)
        if right.count(old) != 1:
            raise ValueError(f"{problem.task_id}: {old!r} is not once in the right answer")
        return right.replace(old, new)
    applied = apply_mutation(problem, mutation.op, mutation.site)
    if applied is None:
        raise ValueError(f"{problem.task_id}: the listed mutation {mutation} does not apply")
    return applied[0]


def draw(seed: int, key: str) -> float:
    """A number in [0, 1) from `seed` and `key` alone: the same for every arm and every run."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def right_half(problems: list[Problem], seed: int) -> set[str]:
    """The task ids that get the right answer: half of `problems` (rounded down), by `seed`."""
    ranked = sorted(problems, key=lambda p: draw(seed, p.task_id))
    return {p.task_id for p in ranked[: len(problems) // 2]}
