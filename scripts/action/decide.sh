#!/usr/bin/env bash
# The "Decide" step of action.yml: fail unless the review approved.
# Inputs (environment): DECISION and EXIT_CODE, the review step's outputs.
set -uo pipefail

meaning() {
  case "$1" in
    0) echo "approved" ;;
    1) echo "changes requested or rejected (a real verdict that says no)" ;;
    2) echo "usage error: bad arguments, unknown base ref or bad configuration" ;;
    3) echo "undecidable: the review was malformed or empty even after the retry" ;;
    4) echo "the reviewer agent failed (timeout, crash or CLI missing)" ;;
    5) echo "escalated: a person must review (revision cap or stall)" ;;
    *) echo "mergegate did not run, or exited ${1:-?}" ;;
  esac
}

if [ "${EXIT_CODE:-}" = "0" ] && [ "${DECISION:-}" = "approve" ]; then
  echo "mergegate: approved"
  exit 0
fi
echo "::error title=mergegate review::${DECISION:-no decision} (exit ${EXIT_CODE:-?}): $(meaning "${EXIT_CODE:-}")"
exit 1
