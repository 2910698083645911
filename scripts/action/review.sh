#!/usr/bin/env bash
# The "Review" step of action.yml: run `mergegate review`, record its decision and exit code
# as step outputs, write the job summary. It never fails itself; the "Decide" step does.
#
# Inputs (environment): INPUT_BASE, INPUT_SPEC, INPUT_REVIEWER, INPUT_REVIEWER_CMD,
# INPUT_CONFIG, INPUT_ARGS, INPUT_PYTHON, and the runner's GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP,
# GITHUB_BASE_REF, GITHUB_EVENT_PATH. Every value reaches mergegate as one argv element:
# nothing here is evaluated by a shell (the pull request's text is data).
#   base   default: origin/$GITHUB_BASE_REF on a pull request, else mergegate's HEAD~1
#   spec   default: the pull request's title and description, when there is one
#   config mergegate's configuration file; default: the base revision's (mergegate review
#          never reads the pull request's own configuration)
#   args   more `mergegate review` arguments, split like a shell would (quotes, no expansion)
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${INPUT_PYTHON:-python3}"
temp="${RUNNER_TEMP:?RUNNER_TEMP is not set}"
result="$temp/mergegate-review.json"

args=(review --format json)
base="${INPUT_BASE:-}"
if [ -z "$base" ] && [ -n "${GITHUB_BASE_REF:-}" ]; then
  base="origin/$GITHUB_BASE_REF"
fi
[ -z "$base" ] || args+=(--base "$base")
if [ -n "${INPUT_SPEC:-}" ]; then
  args+=(--spec "$INPUT_SPEC")
elif [ -n "${GITHUB_EVENT_PATH:-}" ] &&
  "$python" "$here/review_io.py" spec "$GITHUB_EVENT_PATH" "$temp/mergegate-spec.md"; then
  args+=(--spec "$temp/mergegate-spec.md")
fi
[ -z "${INPUT_REVIEWER:-}" ] || args+=(--reviewer "$INPUT_REVIEWER")
[ -z "${INPUT_REVIEWER_CMD:-}" ] || args+=(--reviewer-cmd "$INPUT_REVIEWER_CMD")
[ -z "${INPUT_CONFIG:-}" ] || args+=(--config "$INPUT_CONFIG")
extra=()
if [ -n "${INPUT_ARGS:-}" ]; then
  if ! "$python" "$here/review_io.py" split "$INPUT_ARGS" >"$temp/mergegate-args"; then
    # Arguments that cannot be read are not dropped silently: the gate says "usage error".
    echo "::error::mergegate: cannot split the args input (unbalanced quotes?)"
    { echo "decision=error"; echo "exit-code=2"; } >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
    exit 0
  fi
  mapfile -d '' extra <"$temp/mergegate-args"
fi

# Reviewer text may reach the log (stderr progress, the JSON): no workflow commands in it.
token="mergegate-$("$python" -c 'import secrets; print(secrets.token_hex(16))')"
echo "::stop-commands::$token"
CI="${CI:-true}" mergegate "${args[@]}" "${extra[@]}" >"$result"
code=$?
cat "$result"
echo "::$token::"

decision="$("$python" "$here/review_io.py" decision "$result")"
{
  echo "decision=$decision"
  echo "exit-code=$code"
} >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  "$python" "$here/review_io.py" summary "$result" "$code" >>"$GITHUB_STEP_SUMMARY"
fi
echo "mergegate: decision $decision, exit code $code"
exit 0
