"""From a plan's phase to its criteria and the checks derived from each (pure; `--dry-run`).

Criteria, in plan order: the phase's success criteria; per unit its truths, artifacts, key
links and acceptance criteria; per task its native checks, its verify block, its acceptance
criteria and its definition of done; last, requirement coverage. A criterion's checks are what
mergegate can run itself; `judgement` says when its words claim more than those checks test,
and `unchecked` lists what it names that no program can decide (with the reason).

Plan paths are validated lexically here (absolute, `~`, `..` → `PlanPathError`, exit 2), so a
dry run rejects the same plans a real run does.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from mergegate.plans import (
    AcceptanceCriterion,
    Artifact,
    Check,
    KeyLink,
    Phase,
    Plan,
    SourceRef,
    Task,
    Unit,
    find_phase,
)
from mergegate.verify._commands import (
    classify_command,
    commands_in_criterion,
    commands_in_prose,
    commands_in_verify,
    residue,
)
from mergegate.verify._model import (
    CheckKind,
    CheckSpec,
    Criterion,
    CriterionChecks,
    CriterionKind,
)
from mergegate.verify._paths import PlanPathError, check_plan_path, looks_like_path

__all__ = ["coverage_note", "declared_ids", "derive_checks", "find_phase", "fingerprint"]

_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")
_DEFAULT_EXPORT = re.compile(r"^default(?:\s+([A-Za-z_$][\w$]*))?$")
_ID_CHARS = re.compile(r"[^A-Za-z0-9._-]+")

PROSE = "its words are prose: no program can test them"


def fingerprint(kind: CriterionKind, text: str) -> str:
    """A short hash of what a criterion says: answers never carry over to changed words."""
    return hashlib.sha256(f"{kind.value}\0{text}".encode()).hexdigest()[:16]


def derive_checks(plan: Plan, phase: Phase) -> list[CriterionChecks]:
    """Every criterion of `phase` with the checks mergegate would run for it, in plan order.

    Pure: reads neither the tree nor the clock. Raises `PlanPathError` (exit 2) for an
    artifact or key-link path that leaves the repository.
    """
    del plan  # the phase carries everything; kept in the signature for the engine's calls
    items = list(_phase_items(phase))
    return _unique_ids(items)


def _phase_items(phase: Phase) -> Iterator[CriterionChecks]:
    for n, sc in enumerate(phase.success_criteria, start=1):
        yield _prose(f"sc-{n}", CriterionKind.SUCCESS_CRITERION, sc.text, sc.source)
    for unit in phase.units:
        yield from _unit_items(unit)
    yield from _requirements(phase)
    if phase.units:
        yield _placeholder_scan(phase)


def _unit_items(unit: Unit) -> Iterator[CriterionChecks]:
    uid = _slug(unit.id)
    must = unit.must_haves
    for n, truth in enumerate(must.truths, start=1):
        yield _prose(f"{uid}.truth-{n}", CriterionKind.TRUTH, truth, unit.source, unit=unit.id)
    for n, artifact in enumerate(must.artifacts, start=1):
        yield _artifact(f"{uid}.artifact-{n}", artifact, unit)
    for n, link in enumerate(must.key_links, start=1):
        yield _key_link(f"{uid}.link-{n}", link, unit)
    for n, ac in enumerate(unit.acceptance_criteria, start=1):
        yield _acceptance(f"{uid}.{_ac_id(ac, n)}", ac, unit.id, None, unit.source)
    for number, task in enumerate(unit.tasks, start=1):
        yield from _task_items(unit, task, number)


def _task_items(unit: Unit, task: Task, number: int) -> Iterator[CriterionChecks]:
    prefix = f"{_slug(unit.id)}.{_task_slug(task, number)}"
    source = task.source or unit.source
    for n, check in enumerate(task.checks, start=1):
        yield _native_check(f"{prefix}.check-{n}", check, unit.id, task.id, source)
    if task.verify.text.strip() or task.verify.commands:
        yield _verify_block(f"{prefix}.verify", task, unit.id, source)
    for n, ac in enumerate(task.acceptance_criteria, start=1):
        yield _acceptance(f"{prefix}.{_ac_id(ac, n)}", ac, unit.id, task.id, source)
    if task.done.strip():
        yield _prose(
            f"{prefix}.done", CriterionKind.TASK_DONE, task.done, source, unit=unit.id, task=task.id
        )


# ---------------------------------------------------------------- criteria of each kind


def _criterion(
    cid: str,
    kind: CriterionKind,
    text: str,
    source: SourceRef | None,
    *,
    unit: str | None = None,
    task: str | None = None,
) -> Criterion:
    return Criterion(id=cid, kind=kind, text=text.strip(), source=source, unit=unit, task=task)


def _prose(
    cid: str,
    kind: CriterionKind,
    text: str,
    source: SourceRef | None,
    *,
    unit: str | None = None,
    task: str | None = None,
) -> CriterionChecks:
    """Prose: only commands behind explicit markers become checks; the words need judgement."""
    checks, unchecked = _command_checks(commands_in_prose(text))
    return CriterionChecks(
        criterion=_criterion(cid, kind, text, source, unit=unit, task=task),
        checks=checks,
        judgement=PROSE,
        unchecked=unchecked,
    )


def _acceptance(
    cid: str,
    ac: AcceptanceCriterion,
    unit: str,
    task: str | None,
    fallback: SourceRef | None,
) -> CriterionChecks:
    return _commands_and_words(
        _criterion(
            cid, CriterionKind.ACCEPTANCE, ac.text, ac.source or fallback, unit=unit, task=task
        ),
        ac.text,
        commands_in_criterion(ac.text),
    )


def _verify_block(cid: str, task: Task, unit: str, source: SourceRef | None) -> CriterionChecks:
    text = task.verify.text
    given = [c.run for c in task.verify.commands]
    found = given or commands_in_verify(text)
    criterion = _criterion(cid, CriterionKind.TASK_VERIFY, text or "\n".join(given), source)
    criterion = criterion.model_copy(update={"unit": unit, "task": task.id})
    if given:
        checks, unchecked = _command_checks(given, task.verify.commands)
        return _with_words(criterion, checks, unchecked, text, given)
    return _commands_and_words(criterion, text, found)


def _commands_and_words(criterion: Criterion, text: str, commands: list[str]) -> CriterionChecks:
    checks, unchecked = _command_checks(commands)
    return _with_words(criterion, checks, unchecked, text, commands)


def _with_words(
    criterion: Criterion,
    checks: tuple[CheckSpec, ...],
    unchecked: tuple[str, ...],
    text: str,
    commands: list[str],
) -> CriterionChecks:
    """Commands decide alone only when the text says nothing beyond "they pass"."""
    rest = residue(text, commands) if text.strip() else ""
    judgement = None
    if not checks:
        judgement = PROSE
    elif unchecked:
        judgement = "some of its commands cannot be checked by a program"
    elif rest:
        shown = rest if len(rest) <= 80 else rest[:79] + "…"
        judgement = f"its words say more than its commands test ({shown})"
    return CriterionChecks(
        criterion=criterion, checks=checks, judgement=judgement, unchecked=unchecked
    )


def _native_check(
    cid: str, check: Check, unit: str, task: str, source: SourceRef | None
) -> CriterionChecks:
    # A native check is mergegate's own format: a shell command whose author states the exit
    # code that passes, so it always runs under `sh -c` as written (pipelines and builtins
    # too) — the very bytes the task check ran, never a folded copy (a newline in a script
    # ends a comment; whitespace in quotes is data).
    argv = ("sh", "-c", check.run)
    spec = CheckSpec(
        kind=CheckKind.COMMAND,
        description=f"run `{check.run}` (passes on exit {check.expect_exit})",
        command=check.run,
        argv=argv,
        expect_exit=check.expect_exit,
        timeout_s=check.timeout_s,
    )
    criterion = _criterion(
        cid, CriterionKind.CHECK, check.run, check.source or source, unit=unit, task=task
    )
    return CriterionChecks(criterion=criterion, checks=(spec,))


def _command_checks(
    commands: list[str], given: tuple[Check, ...] = ()
) -> tuple[tuple[CheckSpec, ...], tuple[str, ...]]:
    checks: list[CheckSpec] = []
    unchecked: list[str] = []
    by_text = {c.run: c for c in given}
    for text in commands:
        form = classify_command(text, as_written=bool(given))
        if form.problem is not None:
            unchecked.append(f"`{form.text}`: {form.problem}")
            continue
        plan_check = by_text.get(text)
        expect = plan_check.expect_exit if plan_check else 0
        checks.append(
            CheckSpec(
                kind=CheckKind.COMMAND,
                description=f"run `{form.text}`"
                + (f" (passes on exit {expect})" if expect else ""),
                command=form.text,
                argv=form.argv,
                expect_exit=expect,
                timeout_s=plan_check.timeout_s if plan_check else None,
            )
        )
    return tuple(checks), tuple(unchecked)


def _artifact(cid: str, artifact: Artifact, unit: Unit) -> CriterionChecks:
    path = check_plan_path(artifact.path, what=f"artifact {cid}").as_posix()
    text = f"{path}" + (f" — {artifact.provides}" if artifact.provides else "")
    exports = tuple(e.strip() for e in artifact.exports if e.strip())
    odd = [e for e in exports if not (_IDENT.match(e) or _DEFAULT_EXPORT.match(e))]
    substance = []
    if artifact.min_lines is not None:
        substance.append(f"at least {artifact.min_lines} lines")
    if artifact.contains:
        substance.append(f"contains {artifact.contains!r}")
    if exports:
        substance.append(f"exports {', '.join(exports)}")
    substance.append("no placeholder code")
    checks = (
        CheckSpec(kind=CheckKind.EXISTS, description=f"{path} exists", path=path),
        CheckSpec(
            kind=CheckKind.SUBSTANTIVE,
            description=f"{path}: " + "; ".join(substance),
            path=path,
            min_lines=artifact.min_lines,
            contains=artifact.contains,
            exports=tuple(e for e in exports if e not in odd),
        ),
        CheckSpec(
            kind=CheckKind.WIRED,
            description=f"{path} is imported or referenced elsewhere in the tree",
            path=path,
        ),
    )
    unchecked = tuple(f"export {e!r}: not a symbol name" for e in odd)
    return CriterionChecks(
        criterion=_criterion(
            cid, CriterionKind.ARTIFACT, text, artifact.source or unit.source
        ).model_copy(update={"unit": unit.id}),
        checks=checks,
        judgement="some exports are not symbol names" if odd else None,
        unchecked=unchecked,
    )


def _key_link(cid: str, link: KeyLink, unit: Unit) -> CriterionChecks:
    via = f" via {link.via}" if link.via else ""
    text = f"{link.from_} → {link.to}{via}"
    criterion = _criterion(
        cid, CriterionKind.KEY_LINK, text, link.source or unit.source, unit=unit.id
    )
    if not looks_like_path(link.from_):
        reason = f"`from` ({link.from_!r}) is not a file path"
        return CriterionChecks(criterion=criterion, judgement=reason, unchecked=(reason,))
    source = check_plan_path(link.from_, what=f"key link {cid} from").as_posix()
    if link.pattern:
        target: str | None = link.to.strip() or None
        if target is not None and looks_like_path(target):
            try:
                target = check_plan_path(target, what=f"key link {cid} to").as_posix()
            except PlanPathError:
                target = None  # only a second place to look for the pattern: not looked in
        check = CheckSpec(
            kind=CheckKind.PATTERN,
            description=f"pattern {link.pattern!r} found in {source} (or in its target)",
            path=source,
            target=target,
            pattern=link.pattern,
        )
        return CriterionChecks(criterion=criterion, checks=(check,))
    if not looks_like_path(link.to) and not _IDENT.match(link.to.strip()):
        reason = f"no pattern, and `to` ({link.to!r}) is neither a path nor a module name"
        return CriterionChecks(criterion=criterion, judgement=reason, unchecked=(reason,))
    target = link.to.strip()
    if looks_like_path(target):
        target = check_plan_path(target, what=f"key link {cid} to").as_posix()
    check = CheckSpec(
        kind=CheckKind.IMPORT,
        description=f"{source} imports {target}",
        path=source,
        target=target,
    )
    return CriterionChecks(criterion=criterion, checks=(check,))


_REQUIREMENT_ID = re.compile(
    r"(?<![\w-])[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)+(?![\w-])|(?<![\w-])[A-Z]+[0-9]+[A-Za-z]?(?![\w-])"
)


def declared_ids(values: tuple[str, ...]) -> list[str]:
    """The requirement ids among `values`: id-shaped tokens only (`PROJ-01`, `R1`,
    `MODALS-WELCOME-FINAL`), each once, in order. Prose is never split into ids: "Per",
    "coverage", "(thin)", "v1.18" are not ids."""
    found: list[str] = []
    for value in values:
        for token in _REQUIREMENT_ID.findall(value):
            if _id_shaped(token) and token not in found:
                found.append(token)
    return found


def _id_shaped(token: str) -> bool:
    segments = re.split(r"[-_.]", token)
    return any(c.isdigit() for c in token) or sum(1 for p in segments if p.isalpha()) >= 2


def _covers(requirement: str, claimed: str) -> bool:
    """A claim covers a requirement it names, or one of its numbered parts (`AUTH` ← `AUTH-02`)."""
    return claimed == requirement or (
        claimed.startswith(requirement)
        and claimed[len(requirement) : len(requirement) + 1] in "-_."
        and len(claimed) > len(requirement)
    )


def _requirements(phase: Phase) -> Iterator[CriterionChecks]:
    """Every declared phase requirement is claimed by a unit; every claimed id belongs to the
    phase. Only declared ids count: the phase's requirement field (id-shaped tokens) and the
    units' `requirements:`. Without both there is nothing to check ("coverage not
    declared"; the caller warns); a unit that declares none leaves an unclaimed requirement
    unverified, not failed."""
    phase_ids = declared_ids(phase.requirements)
    claims: dict[str, list[str]] = {}
    for unit in phase.units:
        for rid in declared_ids(unit.requirements):
            claims.setdefault(rid, []).append(unit.id)
    if not phase_ids or not claims:
        return
    silent = tuple(u.id for u in phase.units if not declared_ids(u.requirements))
    for rid in phase_ids:
        by = tuple(dict.fromkeys(u for c, us in claims.items() if _covers(rid, c) for u in us))
        yield _requirement(
            f"req-{_slug(rid)}", rid, by, known=True, source=phase.source, silent=silent
        )
    for rid, units in claims.items():
        if not any(_covers(known, rid) for known in phase_ids):
            text = f"{rid} (claimed by {', '.join(units)}; not a requirement of the phase)"
            yield _requirement(
                f"req-{_slug(rid)}", rid, tuple(units), known=False, source=phase.source, text=text
            )


def coverage_note(phase: Phase) -> str | None:
    """Why requirement coverage is not checked for `phase`, or None when it is."""
    phase_ids = declared_ids(phase.requirements)
    claimed = any(declared_ids(u.requirements) for u in phase.units)
    if phase_ids and claimed:
        return None
    if not phase_ids and not claimed:
        return None
    if not claimed:
        return (
            f"requirement coverage not declared: no plan of phase {phase.id} declares "
            f"`requirements:` ({', '.join(phase_ids)} not checked)"
        )
    return (
        f"requirement coverage not declared: phase {phase.id} lists no requirement ids, so the "
        "ids its plans claim are not checked"
    )


def _requirement(
    cid: str,
    rid: str,
    by: tuple[str, ...],
    *,
    known: bool,
    source: SourceRef | None,
    text: str | None = None,
    silent: tuple[str, ...] = (),
) -> CriterionChecks:
    what = "is claimed by a unit of the phase" if known else "is a requirement of the phase"
    check = CheckSpec(
        kind=CheckKind.REQUIREMENT,
        description=f"{rid} {what}",
        requirement=rid,
        claimed_by=by,
        known=known,
        silent=silent,
    )
    criterion = _criterion(cid, CriterionKind.REQUIREMENT, text or rid, source)
    return CriterionChecks(criterion=criterion, checks=(check,))


def _placeholder_scan(phase: Phase) -> CriterionChecks:
    """Seed 004: the placeholder scan covers every file the phase changed, not only the
    declared artifacts (the changed files come from git when the check runs)."""
    listed: list[str] = []
    for unit in phase.units:
        names = [*unit.files, *(f for t in unit.tasks for f in t.files)]
        names += [c.path for t in unit.tasks for c in t.file_changes]
        for name in names:
            path = name.strip().split(":", 1)[0].strip("`")
            if looks_like_path(path) and not path.startswith(("/", "~")) and ".." not in path:
                listed.append(path)
    check = CheckSpec(
        kind=CheckKind.STUBS,
        description="no placeholder code in any file the phase changed (git) or its plans list",
        files=tuple(dict.fromkeys(listed)),
    )
    text = f"the files of phase {phase.id} hold no placeholder code"
    criterion = _criterion(
        f"phase-{_slug(phase.id)}.placeholders", CriterionKind.PLACEHOLDERS, text, phase.source
    )
    return CriterionChecks(criterion=criterion, checks=(check,))


# ---------------------------------------------------------------- ids


def _slug(text: str) -> str:
    return _ID_CHARS.sub("-", text.strip()).strip("-") or "x"


def _task_slug(task: Task, number: int) -> str:
    raw = _slug(task.id)
    return raw if raw.lower().startswith("t") else f"t{raw if raw != 'x' else number}"


def _ac_id(ac: AcceptanceCriterion, n: int) -> str:
    return _slug(ac.id).lower() if ac.id else f"ac-{n}"


def _unique_ids(items: list[CriterionChecks]) -> list[CriterionChecks]:
    """Suffix repeated ids (`-2`, `-3`) so every criterion can be answered by its id."""
    seen: dict[str, int] = {}
    result = []
    for item in items:
        cid = item.criterion.id
        seen[cid] = seen.get(cid, 0) + 1
        if seen[cid] == 1:
            result.append(item)
            continue
        renamed = item.criterion.model_copy(update={"id": f"{cid}-{seen[cid]}"})
        result.append(item.model_copy(update={"criterion": renamed}))
    return result
