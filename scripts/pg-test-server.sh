#!/usr/bin/env bash
# Starts (or reuses) a throwaway PostgreSQL server for the tests and prints its connection string
# (libpq key=value form, on a Unix socket under target/, so that checkouts never collide on a TCP
# port); `stop` stops it.
# Needs the Debian package postgresql (its binaries in /usr/lib/postgresql/<version>/bin); `.ci/run`
# installs it. State lives under target/pg-test; as root, the server runs as the postgres user.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${CARGO_TARGET_DIR:-$root/target}/pg-test"
port="${ALIBI_PG_PORT:-55432}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "postgresql server binaries not found (Debian package postgresql)" >&2
  exit 3
fi
mkdir -p "$base"
exec 9>"$base/lock"
flock 9
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
if [ "${1:-}" = stop ]; then
  as_pg "$bin/pg_ctl" -D "$base/data" -m fast stop >/dev/null 2>&1 || true
  exit 0
fi
if [ ! -f "$base/data/PG_VERSION" ]; then
  rm -rf "$base/data"
  mkdir -p "$base/data" "$base/run"
  touch "$base/log"
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$base/data" "$base/run" "$base/log"; fi
  as_pg "$bin/initdb" -D "$base/data" -A trust -U alibi >/dev/null
fi
if ! as_pg "$bin/pg_ctl" -D "$base/data" status >/dev/null 2>&1; then
  # The server must not inherit the lock (fd 9) or our stdout, or callers would wait on it forever.
  as_pg "$bin/pg_ctl" -D "$base/data" -l "$base/log" -w \
    -o "-p $port -k $base/run -c listen_addresses= -c max_connections=200" start >/dev/null 9>&- </dev/null
fi
echo "host=$base/run port=$port user=alibi dbname=postgres"
