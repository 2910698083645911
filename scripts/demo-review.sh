#!/usr/bin/env bash
# The second example (`make demo-review`): a real `mergegate review` of a small example
# change, end to end, with the offline `local` model (no network, no API key).
#
# Builds a throwaway git repository under a temporary directory from examples/demo/ (one commit
# for base/, one for change/), reviews the change against examples/demo/spec.md, then says
# where the reports are and what the exit code means. Exits with mergegate's exit code.
#
#   scripts/demo-review.sh                             # the review
#   scripts/demo-review.sh --fix --implementer local   # also drive fix rounds (slower)
#   MERGEGATE=/path/to/mergegate scripts/demo-review.sh  # another installation
#
# Extra arguments go to `mergegate review`. MERGEGATE_DEMO_DIR picks the directory to use
# (default: a new `mktemp -d`); it is kept so the reports can be read afterwards.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
example="$root/examples/demo"
mergegate="${MERGEGATE:-$root/.venv/bin/mergegate}"
if [ ! -x "$mergegate" ]; then
  echo "demo: $mergegate not found; run 'make install' (or set MERGEGATE)" >&2
  exit 2
fi

work="${MERGEGATE_DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mergegate-demo.XXXXXX")}"
repo="$work/repo"
reports="$work/reports"
if [ -e "$repo" ]; then
  echo "demo: $repo already exists; pick an empty MERGEGATE_DEMO_DIR" >&2
  exit 2
fi
mkdir -p "$repo"

# A throwaway repository with its own identity: a fresh machine may have no git user.
g() { git -C "$repo" -c user.name="mergegate demo" -c user.email=demo@example.invalid \
        -c commit.gpgsign=false "$@"; }
g init -q
cp -R "$example/base/." "$repo/"
g add -A
g commit -q -m "temperature: Celsius to Fahrenheit"
cp -R "$example/change/." "$repo/"
g add -A
g commit -q -m "temperature: add fahrenheit_to_celsius"

echo "demo: a throwaway repository at $repo"
echo "demo: the change under review (HEAD~1..HEAD):"
g --no-pager diff --stat HEAD~1 HEAD | sed 's/^/  /'
echo "demo: the task and its acceptance criteria: $example/spec.md"
echo "demo: reviewing with the local model (offline; the first run assembles the model"
echo "      from the installed wheels — a few seconds — then each stage takes ~10-60 s on 2 cores)"
echo

# Sessions and other state stay in the demo directory, not in ~/.local/state.
set +e
MERGEGATE_STATE_DIR="$work/state" "$mergegate" review \
  --repo "$repo" --base HEAD~1 --head HEAD \
  --spec "$example/spec.md" \
  --reviewer local \
  --report-dir "$reports" \
  "$@"
code=$?
set -e

case "$code" in
  0) meaning="approved: every stage approved; the change may merge" ;;
  1) meaning="changes requested or rejected: a valid verdict that says no (the gate works)" ;;
  2) meaning="usage error (see the message above)" ;;
  3) meaning="undecidable: the review was malformed twice; see both outputs above" ;;
  4) meaning="agent failure: the local model did not run (see the error above)" ;;
  5) meaning="escalated to a person: the fix loop hit its cap or stalled (see escalation/)" ;;
  *) meaning="unexpected exit code" ;;
esac
echo
echo "demo: mergegate review exited $code — $meaning"
echo "demo: reports (one markdown + JSON per stage attempt, and summary.md): $reports"
for run in "$reports"/*/; do
  [ -d "$run" ] && ls -1 "$run" | sed "s|^|  ${run}|"
done
echo "demo: the bundled 0.5B model follows the review format (a grammar enforces it) but its"
echo "      verdict is close to random; point --reviewer at claude, codex, … for a real one."
exit "$code"
