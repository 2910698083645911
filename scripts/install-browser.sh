#!/usr/bin/env bash
# Install Debian's Chromium for the `browser` tests (tests/test_report_browser.py).
#
# Used by `make test` and by `.ci/run`. Debian's package only (the machine reaches the Debian,
# PyPI and npm registries and nothing else: no `npx playwright install`, no downloaded browser
# build). Idempotent: nothing happens when /usr/bin/chromium is already there.
#
# Without root (or without apt-get) this is not an error here: the browser tests then skip, or
# fail under MERGEGATE_REQUIRE_REAL=1 (CI); a failed install is an error.
set -euo pipefail

browser="${MERGEGATE_CHROMIUM:-/usr/bin/chromium}"

if [ -x "$browser" ]; then
  echo "install-browser: $("$browser" --version 2>/dev/null | head -1) already installed ($browser)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
  echo "install-browser: no apt-get or not root; skipping (browser tests will skip)" >&2
  exit 0
fi

echo "install-browser: installing Debian's chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
