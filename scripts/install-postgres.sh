#!/usr/bin/env bash
# Make Debian's PostgreSQL server binaries available for the `fleet` tests and bench_fleet.py.
#
# Used by `.ci/run` and `make test`. The tests never use a system-wide cluster: they `initdb` a
# throwaway one in a temp dir, on 127.0.0.1 and a free port, and stop it by its pid
# (tests/_postgres.py). This script only makes sure `initdb`, `pg_ctl` and `postgres` exist.
#
# - Fast no-op when /usr/lib/postgresql/<version>/bin holds them (or they are on PATH).
# - Otherwise installs the Debian package `postgresql` with apt-get (one `apt-get update`), as
#   root. The package's post-install step would create and start a "main" cluster on port 5432;
#   `create_main_cluster = false` stops that (nothing listens when this script is done).
# - Prints the binaries' directory on the last line of stdout.
# - Exit 1 when they are missing and cannot be installed (not root, no apt-get): the `fleet`
#   tests then skip, and under MERGEGATE_REQUIRE_REAL=1 (CI) that skip is a failure.
set -euo pipefail

find_bin_dir() {
  local dir
  # The newest major version first (sort -V: 9.6 < 15 < 16).
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
      echo "$dir"
      return 0
    fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 \
    && command -v postgres >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  return 1
}

if dir="$(find_bin_dir)"; then
  echo "install-postgres: PostgreSQL binaries present ($("$dir/postgres" --version))" >&2
  echo "$dir"
  exit 0
fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-postgres: PostgreSQL server binaries not found, and this is not root with" \
    "apt-get; install Debian's 'postgresql' package (fleet tests will skip)" >&2
  exit 1
fi

echo "install-postgres: installing Debian's postgresql package" >&2
# No cluster of the package's own: the tests create theirs in temp dirs.
mkdir -p /etc/postgresql-common
if ! grep -qs '^create_main_cluster *= *false' /etc/postgresql-common/createcluster.conf; then
  echo "create_main_cluster = false" >> /etc/postgresql-common/createcluster.conf
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  -o Dpkg::Options::=--force-confold postgresql >&2

if dir="$(find_bin_dir)"; then
  echo "install-postgres: installed ($("$dir/postgres" --version))" >&2
  echo "$dir"
  exit 0
fi
echo "install-postgres: the postgresql package installed no initdb/pg_ctl/postgres" >&2
exit 1
