"""What the per-call commands import (issue 23, "Start-up"): a guard, not a timing.

`mergegate parse` runs in pipelines and `mergegate hook claude-code` on every Claude Code tool
call, so each must load only what its path needs. Wall time is measured in
`bench/bench_startup.py`; these tests pin the structure that keeps it low, read from
`python -X importtime` of the real entry point, so they do not flake under load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from _hooks import recorded, run_hook

HEAVY = ("tree_sitter", "jinja2", "dbos", "rich", "httpx", "sqlalchemy", "psycopg")
"""Libraries no per-call path needs (tree-sitter: only a Bash command under a closed latch)."""
LAZY = ("yaml", "html", "difflib", "mergegate.verdicts._contract", "mergegate.verdicts._object")
"""Loaded only by the inputs that need them: YAML frontmatter, an HTML entity (`&amp;`), a
configuration mistake (difflib's "did you mean"), a JSON trailer, the verdict object (the
hook's restatement)."""
REVIEW = "### Assessment\n\n**Ready to merge? Yes**\n\n**Reasoning:** All criteria met.\n"
TRAILER = REVIEW + '\n```json\n{"review_id": "r", "verdict": "approve"}\n```\n'


_RUN = """
import atexit, runpy, sys
out = sys.argv.pop(1)
def dump():
    with open(out, "w") as handle:
        handle.write("\\n".join(sorted(sys.modules)))
atexit.register(dump)
sys.argv[0] = "mergegate"
runpy.run_module("mergegate", run_name="__main__", alter_sys=True)
"""
"""`python -m mergegate ARGS`, writing every module loaded by exit to a file (the first
argument): `-X importtime` alone misses a module imported with `importlib.import_module`, as
the lazy packages' `__getattr__` do."""


def _imported(args: list[str], stdin: bytes, cwd: Path) -> set[str]:
    """The modules `python -m mergegate ARGS` imports: those `-X importtime` reports (from
    stderr) and every module loaded by the time it exits."""
    listing = cwd.parent / f"modules-{os.getpid()}-{len(args)}.txt"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _RUN, str(listing), *args],
        input=stdin,
        cwd=cwd,
        capture_output=True,
        check=False,
        env=os.environ.copy(),
    )
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")[-2000:]
    names = set()
    for line in proc.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            names.add(line.rsplit("|", 1)[1].strip())
    assert "mergegate.cli" in names  # the parse above read real output
    loaded = set(listing.read_text().split())
    listing.unlink()
    assert "mergegate.cli" in loaded
    return names | loaded


def _loaded(names: set[str], *packages: str) -> list[str]:
    return sorted(n for n in names if n.split(".")[0] in packages or n in packages)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def _hook(data: dict[str, object], project: Path) -> set[str]:
    return _imported(["hook", "claude-code"], json.dumps(data).encode(), project)


def test_parse_loads_no_engine_store_config_or_heavy_library(tmp_path: Path) -> None:
    names = _imported(["parse", "-"], REVIEW.encode(), tmp_path)
    assert "mergegate.verdicts" in names
    assert _loaded(names, *HEAVY) == []
    # The verdict's values are dataclasses: prose builds no pydantic model (verdicts._model).
    assert _loaded(names, "pydantic", "pydantic_core", "importlib.metadata") == []
    # The confusables table (and importlib.resources, pathlib, tempfile with it) loads only for
    # a word that mixes scripts (verdicts._text).
    assert sorted(names & {"importlib.resources", "pathlib", "tempfile"}) == []
    engine = {"mergegate.config", "mergegate.engine", "mergegate.store", "mergegate.agents"}
    assert sorted(names & (engine | {"mergegate.review", "mergegate.integrations"})) == []
    assert _loaded(names, *LAZY) == []
    # A plain parse argv is read without click (cli._percall), nor what click's types load.
    assert _loaded(names, "click", "mergegate.cli._app", "mergegate.cli.parse") == []
    assert sorted(names & {"uuid", "datetime"}) == []


def test_hook_bash_with_the_latch_open_is_standard_library_only(project: Path) -> None:
    names = _hook(recorded("pre-tool-use-bash-commit", cwd=project), project)
    assert _loaded(names, "pydantic", "pydantic_core", "click", *HEAVY) == []
    # click's types load these; the hook's own argv reader (cli._percall) needs none.
    assert sorted(names & {"uuid", "datetime", "mergegate.cli._app"}) == []
    ours = sorted(n for n in names if n.startswith(("mergegate.verdicts", "mergegate.config")))
    assert ours == []
    # A session file's name hashes only an odd id; a temporary name needs os.urandom only.
    assert sorted(names & {"hashlib", "secrets", "random"}) == []
    # Its values are named tuples: `dataclasses` would load `inspect` with `dis`, `ast` and
    # `tokenize`, a third of this path's imports (integrations._private_dir).
    assert sorted(names & {"dataclasses", "inspect", "dis", "ast", "tokenize"}) == []


def test_hook_bash_with_the_latch_closed_reads_no_review(project: Path) -> None:
    """The guard denies from the latch file: the verdict library is not loaded for it."""
    run_hook(recorded("post-tool-use-fixes", "s-closed", project), project)
    names = _hook(recorded("pre-tool-use-bash-commit", "s-closed", project), project)
    assert "mergegate.integrations._guard" in names  # the guard did run
    assert "mergegate.integrations._shell" in names  # and read the command
    assert sorted(n for n in names if n.startswith("mergegate.verdicts")) == []
    assert _loaded(names, "jinja2", "dbos", "rich", "httpx") == []
    # The latch's records are dataclasses (integrations._latch): no pydantic to read them.
    assert _loaded(names, "pydantic", "pydantic_core") == []


def test_hook_review_result_loads_no_shell_parser(project: Path) -> None:
    names = _hook(recorded("post-tool-use-approve", cwd=project), project)
    assert "mergegate.verdicts" in names
    assert _loaded(names, *HEAVY, *LAZY) == []
    assert "mergegate.integrations._shell" not in names  # the shell reader: Bash commands only
    # A finding's id hashes its text (verdicts._model.finding_id): a review without findings
    # does not load hashlib (and OpenSSL with it).
    assert "hashlib" not in names


def test_hook_calls_load_no_click(project: Path) -> None:
    """The command lines `mergegate hooks install` writes (plain `--NAME VALUE` options) are
    read without click (`cli._percall`): on every tool call, for every kind of answer."""
    options = ["--subagent-type", "*review*", "--result-marker", "Ready to merge?"]
    for name in ("post-tool-use-approve", "post-tool-use-fixes", "pre-tool-use-bash-commit"):
        for args in ([], [*options, "--timeout", "20"]):
            data = json.dumps(recorded(name, cwd=project)).encode()
            names = _imported(["hook", "claude-code", *args], data, project)
            assert _loaded(names, "click", "mergegate.cli._app", "mergegate.cli.hook") == []


def test_hook_review_result_loads_no_pydantic(project: Path) -> None:
    """The hook reads `[hooks]` alone (`config._hooks`, standard library), its latch state as
    dataclasses, and the verdict object's model only for a restatement: an approving review,
    and one that asks for fixes, load no pydantic and no other section's models."""
    for name in ("post-tool-use-approve", "post-tool-use-fixes"):
        names = _hook(recorded(name, cwd=project), project)
        assert "mergegate.integrations._trust" in names  # the configuration was read
        assert _loaded(names, "pydantic", "pydantic_core", "importlib.metadata") == []
        assert sorted(names & {"mergegate.config._models", "mergegate.config._load"}) == []
        # No configuration file and no MERGEGATE_ variable: nothing to parse as TOML.
        assert "tomllib" not in names


def test_the_lazy_parts_load_for_the_documents_that_need_them(tmp_path: Path) -> None:
    """Frontmatter loads the YAML reader, an entity the HTML table, a trailer the contract."""
    front = "---\nstatus: clean\ncritical: 0\n---\n\n" + REVIEW
    assert "yaml" in _imported(["parse", "-"], front.encode(), tmp_path)
    entity = REVIEW.replace("All", "All &amp;")
    assert "html" in _imported(["parse", "-"], entity.encode(), tmp_path)
    names = _imported(["parse", "-"], TRAILER.encode(), tmp_path)
    assert "mergegate.verdicts._contract" in names


def test_the_trailer_and_verdict_object_models_build_only_when_used() -> None:
    """`ReviewVerdict` and `VerdictObject` (pydantic) build their validators on first use:
    a review without a trailer or an object never pays for them."""
    code = (
        "from mergegate.verdicts import ReviewVerdict, VerdictObject, parse_verdict\n"
        f"assert parse_verdict({REVIEW!r}).approved\n"
        "print(ReviewVerdict.__pydantic_complete__, VerdictObject.__pydantic_complete__)\n"
        'parse_verdict(\'```json\\n{"review_id": "r", "verdict": "approve"}\\n```\')\n'
        "print(ReviewVerdict.__pydantic_complete__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, check=True, env=os.environ.copy()
    )
    assert proc.stdout.decode().split() == ["False", "False", "True"]


def test_per_call_commands_do_not_look_pydantic_plugins_up(tmp_path: Path) -> None:
    """`parse` and `hook` set `PYDANTIC_DISABLE_PLUGINS` (`cli._app.PER_CALL`): an installed
    pydantic plugin is not even imported there; a caller's own setting is kept. (A review with
    a JSON trailer: prose alone builds no pydantic model at all.)"""
    site = tmp_path / "site"
    dist = site / "probe_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: probe-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pydantic]\nprobe = probe_plugin:plugin\n")
    marker = tmp_path / "loaded"
    (site / "probe_plugin.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).touch()\n"
        "class Probe:\n"
        "    def new_schema_validator(self, *args, **kwargs):\n"
        "        return None, None, None\n"
        "plugin = Probe()\n"
    )

    # Not from this process's environment: an in-process CLI test may have set it here.
    base = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}

    def parse(**env: str) -> bool:
        marker.unlink(missing_ok=True)
        subprocess.run(
            [sys.executable, "-m", "mergegate", "parse", "-"],
            input=TRAILER.encode(),
            capture_output=True,
            check=True,
            env={**base, "PYTHONPATH": str(site), **env},
        )
        return marker.exists()

    assert not parse()
    assert parse(PYDANTIC_DISABLE_PLUGINS="other")  # the caller's own choice stands


_COMPILED_AT_IMPORT = """
import re, sys, _sre
real = _sre.compile
ours = []
def spy(pattern, *args):
    frame = sys._getframe(1)
    while frame is not None and (
        frame.f_code.co_filename.startswith(re.__path__[0])
        or frame.f_code.co_filename.endswith(("_patterns.py", "_pattern_cache.py"))
    ):
        frame = frame.f_back
    if frame is not None and "mergegate" in frame.f_code.co_filename:
        ours.append(pattern)
    return real(pattern, *args)
_sre.compile = spy  # every pattern is built here, compiled afresh or from the pattern cache
import mergegate.verdicts
print(len(ours))
"""


def test_importing_the_verdict_library_compiles_almost_none_of_its_patterns() -> None:
    """Its few hundred patterns (large vocabularies among them) compile on first use
    (`verdicts._patterns`): compiling them all at import was most of the start-up of `parse`
    and of the review hook. Only the two that normalise the vocabularies themselves run at
    import."""
    proc = subprocess.run(
        [sys.executable, "-c", _COMPILED_AT_IMPORT],
        capture_output=True,
        check=True,
        env=os.environ.copy(),
    )
    assert int(proc.stdout) <= 2
