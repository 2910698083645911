"""The pure parts of verification: commands in plan prose, placeholder code across languages,
exports, imports, plan paths, and `derive_checks` on corpus-shaped criteria."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.plans import (
    Artifact,
    KeyLink,
    MustHaves,
    Phase,
    Plan,
    PlanFormat,
    Task,
    Unit,
    Verify,
)
from mergegate.verify import CheckKind, PlanPathError, derive_checks
from mergegate.verify._code import exported_names, find_stubs, import_specifiers, is_entry_point
from mergegate.verify._commands import classify_command, commands_in_prose, commands_in_verify
from mergegate.verify._paths import check_plan_path, looks_like_path

# ---------------------------------------------------------------- commands


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # ssherpa-style fenced block plus an inline runner
        (
            "```bash\ngo test -race -v ./internal/project/...\n```\nAll tests pass. "
            "`go vet ./internal/project/...` clean.",
            ["go test -race -v ./internal/project/...", "go vet ./internal/project/..."],
        ),
        # Run lines with backticks; paths in backticks are not commands
        (
            "Run `go build ./...` — must compile.\nVerify that `internal/domain/` has no imports",
            ["go build ./..."],
        ),
        # GSD <automated> children
        (
            "<automated>npm test -- --run tests/uiStore.test.ts</automated>",
            ["npm test -- --run tests/uiStore.test.ts"],
        ),
        # bare prose names commands without marking them: nothing is invented
        ("npm test passes; npm run build succeeds", []),
        # grep and installers are never taken from backticks
        ("`grep -c cameraMode src/x.ts` returns 0; `npm install zod`", []),
        ("`python -m pytest -q` passes and `python setup.py install`", ["python -m pytest -q"]),
    ],
)
def test_commands_are_taken_only_behind_markers(text: str, expected: list[str]) -> None:
    assert commands_in_verify(text) == expected


def test_prose_takes_only_automated_and_run_lines() -> None:
    text = "Users see `npm test` green.\nRun: make check\n<automated>pytest -q</automated>"
    assert commands_in_prose(text) == ["pytest -q", "make check"]


@pytest.mark.parametrize(
    "text",
    [
        "cd /Users/me/app && npx tsc --noEmit 2>&1 | grep -E 'TreeRow|error' | head -20",
        "grep -r x src/ | wc -l",
        "npm test || true",
        "make a; make b",
        "sleep 100 &",
        "grep -c cameraMode src/stores/uiStore.ts",
        "head -40 CHANGELOG.md",
        "npm view megazord-cli",
        "cd web && wc -l src/x.ts",
    ],
)
def test_commands_whose_exit_status_is_not_theirs_are_not_checks(text: str) -> None:
    form = classify_command(text)
    assert form.problem is not None
    assert form.argv == ()


def test_plain_commands_run_as_argv_and_shell_syntax_under_sh() -> None:
    assert classify_command("go test ./...").argv == ("go", "test", "./...")
    quoted = classify_command('go test -run "A|B" ./...')  # a quoted `|` is no pipe
    assert quoted.argv == ("go", "test", "-run", "A|B", "./...")
    for text in (
        "cd web && npm test",
        "npx vitest run src/*/x.test.ts",
        "make 2>&1",
        "make $TARGET",
    ):
        form = classify_command(text)
        assert form.argv == ("sh", "-c", text)
        assert form.via_shell


@given(st.text(max_size=200))
def test_classification_never_raises(text: str) -> None:
    form = classify_command(text)
    assert form.problem is not None or form.argv


# ---------------------------------------------------------------- placeholder code

STUBS = [
    ("a.py", ""),
    ("a.py", "# TODO: implement\n"),
    ("a.py", '"""Docs."""\nimport os\n'),
    ("a.py", "def f():\n    pass\n\ndef g():\n    ...\n"),
    ("a.py", "def f(x):\n    return x\n\ndef g():\n    raise NotImplementedError('later')\n"),
    ("a.ts", "import x from './x';\nexport {};\n"),
    ("a.ts", "export function f(): number {\n  throw new Error('Not implemented');\n}\n"),
    ("a.ts", "export const f = () => {};\nexport function g() { return null; }\n"),
    ("Chat.tsx", "export default function Chat() {\n  return <div>Chat</div>;\n}\n"),
    ("Chat.tsx", "export function Chat() {\n  return null;\n}\n"),
    ("Chat.jsx", "export const Chat = () => {\n  return (<div>TODO: messages</div>);\n};\n"),
    ("a.go", "package a\n\nfunc F() {\n}\n"),
    ("a.go", 'package a\n\nfunc F() int {\n\tpanic("not implemented")\n}\n'),
    ("a.go", 'package a\n\nimport "fmt"\n'),
]
REAL = [
    ("a.py", "def f(x):\n    return x * 2\n"),
    (
        "a.py",
        "from typing import Protocol\n\nclass P(Protocol):\n    def f(self) -> int: ...\n\n"
        "def g() -> int:\n    return 1\n",
    ),
    (
        "a.py",
        "import abc\n\nclass B(abc.ABC):\n    @abc.abstractmethod\n    def f(self):\n"
        "        raise NotImplementedError\n\nclass C(B):\n    def f(self):\n        return 3\n",
    ),
    ("a.ts", "export function add(a: number, b: number): number {\n  return a + b;\n}\n"),
    (
        "Chat.tsx",
        "export function Chat({ items }: P) {\n  if (!items) return null;\n"
        "  return <ul>{items.map(i => <li>{i}</li>)}</ul>;\n}\n",
    ),
    ("a.go", "package a\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"),
    ("a.md", "# Notes\n\nReal content about the reviewer protocol.\n"),
]


@pytest.mark.parametrize(("path", "text"), STUBS)
def test_placeholder_code_is_not_substantive(path: str, text: str) -> None:
    assert find_stubs(path, text).stub is not None


@pytest.mark.parametrize(("path", "text"), REAL)
def test_real_code_is_substantive(path: str, text: str) -> None:
    assert find_stubs(path, text).stub is None


@given(st.text(alphabet="{}()[]'\"`/*\\\n abc=>;", max_size=400))
def test_stub_detection_never_raises_on_braces_and_quotes(text: str) -> None:
    for path in ("x.ts", "x.go", "x.py"):
        find_stubs(path, text)


# ---------------------------------------------------------------- exports and imports


@pytest.mark.parametrize(
    ("path", "text", "name", "found"),
    [
        ("a.py", "def add():\n    return 1\n", "add", True),
        ("a.py", "class Adder:\n    pass\n", "Adder", True),
        ("a.py", "x = 1\n", "add", False),
        ("a.ts", "export function canMoveTo() {}\n", "canMoveTo", True),
        ("a.ts", "export const WALL_PADDING = 1;\n", "WALL_PADDING", True),
        ("a.ts", "const hidden = 1;\nexport { hidden as shown };\n", "hidden", True),
        ("a.ts", "function local() {}\n", "local", False),
        ("W.tsx", "export default function ProductForm() {}\n", "default ProductForm", True),
        ("W.tsx", "export default function Other() {}\n", "default ProductForm", False),
        ("W.tsx", "const X = 1;\nexport default X;\n", "default", True),
        ("e.go", 'package e\n\nvar (\n\tErrNotFound = errors.New("x")\n)\n', "ErrNotFound", True),
        ("e.go", "package e\n\ntype BackendError struct{}\n", "BackendError", True),
        ("e.go", "package e\n\nfunc helper() {}\n", "helper", False),
        ("l.rs", "pub fn parse() {}\n", "parse", True),
        ("x.java", "public class X {}\n", "X", False),
    ],
)
def test_exports(path: str, text: str, name: str, found: bool) -> None:
    assert (exported_names(path, text, (name,))[name] is not None) is found


def test_imports_are_read_per_language() -> None:
    py = import_specifiers("src/app/cli.py", "from .core import add\nimport os.path\n")
    assert ("src.app.core", 1) in py
    assert ("os.path", 2) in py
    ts = import_specifiers(
        "src/a.ts", "import { x } from '@/lib/x';\nconst y = require(\"./y\");\n"
    )
    assert [s for s, _ in ts] == ["@/lib/x", "./y"]
    go = 'package main\n\nimport (\n\t"fmt"\n\tp "github.com/me/app/internal/project"\n)\n'
    assert [s for s, _ in import_specifiers("cmd/main.go", go)] == [
        "fmt",
        "github.com/me/app/internal/project",
    ]


def test_entry_points_need_no_importer() -> None:
    for path in (
        "tests/test_x.py",
        "src/x.test.ts",
        "cmd/app/main.go",
        "vite.config.ts",
        "src/index.ts",
    ):
        assert is_entry_point(path), path
    for path in ("src/app/core.py", "src/components/Chat.tsx", "internal/project/detector.go"):
        assert not is_entry_point(path), path


# ---------------------------------------------------------------- paths


@pytest.mark.parametrize("bad", ["/etc/passwd", "~/x", "../x", "a/../../x", "C:\\x", "\\\\host\\x"])
def test_plan_paths_that_leave_the_tree(bad: str) -> None:
    with pytest.raises(PlanPathError):
        check_plan_path(bad, what="test")


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("internal/project/detector.go", True),
        ("go.mod", True),
        ("src/", True),
        ("hash/fnv", True),
        ("git CLI", False),
        ("Plan 76-01 changes", False),
        ("npmjs.com/package/megazord-cli", False),
        ("github.com/whilp/git-urls", False),
        ("src/index.css .light class", False),
        ("execution_rules", False),
        ("src/**/*.ts", False),
    ],
)
def test_what_looks_like_a_path(text: str, path: bool) -> None:
    assert looks_like_path(text) is path


# ---------------------------------------------------------------- derive


def test_derive_checks_on_gsd_shaped_must_haves() -> None:
    links = (
        KeyLink.model_validate(
            {
                "from": "internal/project/detector.go",
                "to": "git CLI",
                "pattern": r"exec\.Command.*git",
            }
        ),
        KeyLink.model_validate(
            {"from": "src/index.css .light class", "to": "x.tsx", "pattern": "light"}
        ),
        KeyLink.model_validate({"from": "cmd/main.go", "to": "internal/project/detector.go"}),
    )
    unit = Unit(
        id="04-01",
        must_haves=MustHaves(
            truths=("Tool detects the project",),
            artifacts=(Artifact(path="src/W.tsx", exports=("default ProductForm", "a hook")),),
            key_links=links,
        ),
        tasks=(
            Task(
                id="Task 1",
                name="t",
                verify=Verify(text="```bash\ngo test ./...\n```"),
                done="Done.",
            ),
        ),
    )
    plan = Plan(format=PlanFormat.GSD, phases=(Phase(id="04", units=(unit,)),))
    items = {i.criterion.id: i for i in derive_checks(plan, plan.phases[0])}
    assert list(items) == [
        "04-01.truth-1",
        "04-01.artifact-1",
        "04-01.link-1",
        "04-01.link-2",
        "04-01.link-3",
        "04-01.Task-1.verify",
        "04-01.Task-1.done",
        "phase-04.placeholders",
    ]
    assert items["04-01.truth-1"].judgement is not None
    artifact = items["04-01.artifact-1"]
    assert [c.kind for c in artifact.checks] == [
        CheckKind.EXISTS,
        CheckKind.SUBSTANTIVE,
        CheckKind.WIRED,
    ]
    assert artifact.checks[1].exports == ("default ProductForm",)
    assert artifact.unchecked  # "a hook" is not a symbol
    assert items["04-01.link-1"].checks[0].kind is CheckKind.PATTERN
    assert not items["04-01.link-2"].checks
    assert items["04-01.link-3"].checks[0].kind is CheckKind.IMPORT
    verify = items["04-01.Task-1.verify"]
    assert verify.judgement is None
    assert verify.checks[0].argv == ("go", "test", "./...")
