#!/usr/bin/env bash
# The README's main job: `mergegate run` of a small two-phase plan, end to end, with the offline
# `local` model as implementer and reviewer (no network, no API key).
#
# Builds a throwaway git repository under a temporary directory from examples/run/repo/, runs
# examples/run/plan.yaml on it (each task implemented, committed, checked, reviewed in two
# stages, fixed in bounded rounds; each unit merged into the integration branch; each phase
# verified there before the next one starts), then prints the run's status table, the
# integration branch and where the reports are. Exits with mergegate's exit code.
#
#   scripts/demo.sh                                     # the run
#   scripts/demo.sh --max-rounds 3                      # extra arguments go to `mergegate run`
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
echo "demo: running it with the local model as implementer and reviewer (offline; the first run"
echo "      assembles the model from the installed wheels — a few seconds — then each agent"
echo "      call takes ~10-60 s on 2 cores)"
echo

# Sessions, runs and work trees stay in the demo directory, not in the repository or ~/.local.
# A 0.5B model often ends without a valid agent-result JSON: one ask again in its session, not
# five (each is a whole generation on 2 cores), then the task escalates.
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
  5) meaning="escalated to a person: the gate stopped the run (a cap, a stall, or a phase that
     did not verify) — the reports say why; that is the gate working" ;;
  *) meaning="unexpected exit code" ;;
esac
echo
echo "demo: mergegate run exited $code — $meaning"
run_id="$(MERGEGATE_STATE_DIR="$work/state" "$mergegate" runs --repo "$repo" --format json \
  | python3 -c 'import json, sys; runs = json.load(sys.stdin); print(runs[-1]["run_id"] if runs else "")')"
if [ -n "$run_id" ]; then
  echo "demo: the run's status (mergegate status $run_id):"
  MERGEGATE_STATE_DIR="$work/state" "$mergegate" status "$run_id" --repo "$repo" | sed 's/^/  /'
  echo "demo: the integration branch mergegate/$run_id:"
  g --no-pager log --oneline --graph "mergegate/$run_id" | sed 's/^/  /'
  echo "demo: reports: $work/state/runs/$run_id/SUMMARY.md (the run), <phase>/<unit>/SUMMARY.md"
  echo "      (each unit, with any Unresolved Review Findings), <phase>/<unit>/*-REVIEW-T<n>.md"
  echo "      (each task's review), <phase>/verify/g01/VERIFICATION.md (each phase)"
fi
echo "demo: the bundled 0.5B model follows the formats (grammars enforce them) but it is a weak"
echo "      implementer and a close-to-random reviewer; use claude, codex, … for real work."
exit "$code"
