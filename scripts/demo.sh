#!/usr/bin/env bash
# The README's main job: `mergegate run` of a small two-phase plan, end to end, with the offline
# `local` model as implementer and reviewer (no network, no API key).
#
# Builds a throwaway git repository under a temporary directory from examples/run/repo/, runs
# examples/run/plan.yaml on it (each task implemented, committed, checked, reviewed in two
# stages, fixed in bounded rounds; each unit merged into the integration branch; each phase
# verified there before the next one starts), with a progress line at least every 10 s, then
# prints the run's status table, the integration branch's log and where the reports are.
# Exits with mergegate's exit code.
#
#   scripts/demo.sh                                     # the run
#   scripts/demo.sh --phase 1                           # extra arguments go to `mergegate run`
#   MERGEGATE_DEMO_MODEL=1.5b scripts/demo.sh           # the larger model (the `local-1-5b` extra)
#   MERGEGATE=/path/to/mergegate scripts/demo.sh        # another installation
#
# MERGEGATE_DEMO_DIR picks the directory to use (default: a new `mktemp -d`); it is kept so the
# reports can be read afterwards. The second example, a single review, is scripts/demo-review.sh.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
example="$root/examples/run"
mergegate="${MERGEGATE:-$root/.venv/bin/mergegate}"
if [ ! -x "$mergegate" ]; then
  echo "demo: $mergegate not found; run 'make install' (or set MERGEGATE)" >&2
  exit 2
fi

case "${MERGEGATE_DEMO_MODEL:-0.5b}" in
  0.5b) model=qwen2.5-coder-0.5b ;;
  1.5b) model=qwen2.5-coder-1.5b ;;
  *) echo "demo: MERGEGATE_DEMO_MODEL is 0.5b or 1.5b, not '$MERGEGATE_DEMO_MODEL'" >&2; exit 2 ;;
esac
# The local backend's model, as a person would set it ([agents.backends.local] model).
export MERGEGATE_AGENTS__BACKENDS__LOCAL__MODEL="$model"

work="${MERGEGATE_DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mergegate-demo.XXXXXX")}"
repo="$work/repo"
if [ -e "$repo" ]; then
  echo "demo: $repo already exists; pick an empty MERGEGATE_DEMO_DIR" >&2
  exit 2
fi
mkdir -p "$repo"

# A throwaway repository with its own identity: a fresh machine may have no git user.
g() { git -C "$repo" "$@"; }
g init -q
g config user.name "mergegate demo"
g config user.email demo@example.invalid
g config commit.gpgsign false
cp -R "$example/repo/." "$repo/"
g add -A
g commit -q -m "greetings: an empty project"

echo "demo: a throwaway repository at $repo"
echo "demo: the plan ($example/plan.yaml):"
MERGEGATE_STATE_DIR="$work/state" "$mergegate" run "$example/plan.yaml" --repo "$repo" \
  --implementer local --reviewer local --dry-run | sed 's/^/  /'
echo "demo: running it with the local model ($model) as implementer and reviewer, offline;"
echo "      the first run assembles the model from its installed wheels (a few seconds). The"
echo "      model takes from a few seconds to a minute a call on two cores (more when they are busy);"
echo "      a line at least every 10 s says what it is doing."
echo

# Sessions, runs and work trees stay in the demo directory, not in the repository or ~/.local.
# The grammar makes every agent-result valid; should one still be refused, one ask again in
# its session (a whole generation on 2 cores), not five, then the task escalates.
set +e
MERGEGATE_RETRY__MAX_ATTEMPTS='{"agent-result" = 2}' \
MERGEGATE_STATE_DIR="$work/state" "$mergegate" run "$example/plan.yaml" --repo "$repo" \
  --implementer local --reviewer local --max-rounds 2 --progress plain "$@"
code=$?
set -e

case "$code" in
  0) meaning="every unit merged and every phase verified on the integration branch" ;;
  1) meaning="a real 'no'" ;;
  2) meaning="usage error (see the message above)" ;;
  3) meaning="undecidable: a review stayed malformed after its retry" ;;
  4) meaning="agent failure: the local model did not run (see the error above)" ;;
  5) meaning="escalated: the gate stopped work it could not approve (a check that kept
      failing, a review that kept asking for fixes, a phase that did not verify); none of it
      was merged, and the table above says why" ;;
  *) meaning="unexpected exit code" ;;
esac
echo
echo "demo: mergegate run exited $code — $meaning"
run_id="$(MERGEGATE_STATE_DIR="$work/state" "$mergegate" runs --repo "$repo" --format json \
  | python3 -c 'import json, sys; runs = json.load(sys.stdin); print(runs[-1]["run_id"] if runs else "")')"
if [ -n "$run_id" ]; then
  # The run printed its status table above (`mergegate status RUN` shows it again).
  echo "demo: the integration branch mergegate/$run_id:"
  g --no-pager log --oneline --graph "mergegate/$run_id" | sed 's/^/  /'
  echo "demo: reports: $work/state/runs/$run_id/SUMMARY.md (the run), <phase>/<unit>/SUMMARY.md"
  echo "      (each unit, with any Unresolved Review Findings), <phase>/<unit>/*-REVIEW-T<n>.md"
  echo "      (each task's review), <phase>/verify/g01/VERIFICATION.md (each phase)"
fi
echo "demo: the local model follows the formats (grammars enforce them), and the gate decides"
echo "      from its answers as from any agent's: what merged passed the task's checks and both"
echo "      review stages. It is a small model — a weak implementer and a close-to-random"
echo "      reviewer (README: what to expect); use claude, codex, … for real work."
exit "$code"
