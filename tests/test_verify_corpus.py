"""`mergegate verify --dry-run` on the real GSD phases of the shared corpus, imported by
`mergegate.plans`: every criterion is listed with the checks derived from it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mergegate.cli import cli
from mergegate.plans import LoadedPlan, read_plan


def _load(path: Path) -> LoadedPlan:
    return read_plan(path)


def test_dry_run_lists_every_criterion_of_the_corpus_gsd_phases(
    shared_dir: Path, tmp_path: Path
) -> None:
    corpus = shared_dir / "corpus" / "plans" / "gsd"
    totals = {"criteria": 0, "with_program_check": 0}
    phases = 0
    for project in sorted(p for p in corpus.iterdir() if p.is_dir()):
        loaded = _load(project)
        for phase in loaded.plan.phases:
            if not phase.units:
                continue
            phases += 1
            args = [
                "verify",
                str(project),
                "--phase",
                phase.id,
                "--dry-run",
                "--repo",
                str(tmp_path),
            ]
            result = CliRunner().invoke(cli, [*args, "--format", "json"])
            assert result.exit_code == 0, result.output
            data = json.loads(result.stdout)
            for criterion in data["criteria"]:
                assert criterion["id"], criterion
                assert criterion["kind"], criterion
                assert criterion["source"], criterion
                assert criterion["checks"] or criterion["judgement"], criterion
            for key in totals:
                totals[key] += data["summary"][key]
            text = CliRunner().invoke(cli, args)
            assert "criteria (" in text.stdout.rstrip().splitlines()[-1]
    assert phases > 0
    share = totals["with_program_check"] / totals["criteria"]
    print(
        f"\ncorpus GSD phases: {phases}; {totals['with_program_check']} of "
        f"{totals['criteria']} criteria ({share:.0%}) got a program check"
    )
    assert share > 0
