#!/usr/bin/env bash
# `make bench`: every figure of the performance targets (README "Performance"), each the median of
# three runs, as one plain table. Installs wrk from Debian when missing (as root), uses the
# PostgreSQL on LATCHKEY_PG_PORT (default 55432) when one answers there and otherwise starts the
# throwaway one (scripts/pg.sh, stopped again at the end), builds bin/mailpit when missing (make
# deps), then runs bench/latchkey. Extra arguments go to bench/latchkey (e.g. -runs 1 -duration 3s -only sessions).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

if ! command -v wrk >/dev/null; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "bench.sh: wrk is missing; install it (apt-get install wrk) or run as root" >&2
		exit 1
	fi
	echo "bench.sh: installing wrk (Debian)"
	apt-get install -y -q wrk >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q wrk >/dev/null; }
fi

PORT=${LATCHKEY_PG_PORT:-55432}
DSN=${LATCHKEY_BENCH_POSTGRES_DSN:-}
if [ -z "$DSN" ]; then
	pg_isready_bin=$(ls /usr/lib/postgresql/*/bin/pg_isready 2>/dev/null | sort -V | tail -1 || true)
	if [ -n "$pg_isready_bin" ] && "$pg_isready_bin" -q -h 127.0.0.1 -p "$PORT" -U postgres; then
		DSN="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"   # already running: use it, never restart it
	elif [ -n "$pg_isready_bin" ]; then
		# Started here, so stopped here on every exit path: left running, it
		# held the port that `make test` starts its own PostgreSQL on.
		trap 'scripts/pg.sh stop' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		DSN=$(scripts/pg.sh start)
	else
		echo "bench.sh: no PostgreSQL installed (make deps installs it); the PostgreSQL figure is skipped" >&2
	fi
fi

[ -x bin/mailpit ] || scripts/deps.sh
[ -x bin/latchkey ] || make build

go run ./bench/latchkey -postgres "$DSN" -mailpit bin/mailpit -binary bin/latchkey -widget web/widget/dist "$@"
