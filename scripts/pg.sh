#!/usr/bin/env bash
# Throwaway PostgreSQL cluster for tests: `pg.sh start|stop|dsn`.
#
# The cluster lives in a scratch directory, listens on 127.0.0.1 only and is tuned for speed, not
# durability (fsync off). Tests create their own databases on it. `stop` shuts the server down by
# its data directory (pg_ctl reads the postmaster pid file), never by process name, and removes the
# directory. LATCHKEY_PG_PORT overrides the port, LATCHKEY_PG_DIR the directory.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${LATCHKEY_PG_PORT:-55432}

# initdb refuses to run as root, so as root every server command runs as the postgres user.
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# The postgres user must be able to reach the directory. A clone under a private home (e.g. /root)
# is not traversable for it, so fall back to a per-port directory under /tmp; the choice is
# deterministic, so `stop` finds the same directory as `start`.
pick_dir() {
	if [ -n "${LATCHKEY_PG_DIR:-}" ]; then
		printf '%s\n' "$LATCHKEY_PG_DIR"
	elif as_pg test -x "$ROOT" && as_pg test -x "$(dirname "$ROOT")"; then
		printf '%s\n' "$ROOT/tmp/pg-$PORT"
	else
		printf '%s\n' "${TMPDIR:-/tmp}/latchkey-pg-$PORT"
	fi
}

DIR=$(pick_dir)
DATA=$DIR/data
LOG=$DIR/postgres.log

pg_bin() {
	local d
	# Newest installed major version wins (Debian installs under /usr/lib/postgresql/<major>/bin).
	d=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
		echo "pg.sh: PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (run scripts/deps.sh)" >&2
		exit 1
	fi
	printf '%s\n' "$d"
}

dsn() {
	printf 'postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable\n' "$PORT"
}

stop() {
	local bin
	if [ -f "$DATA/postmaster.pid" ]; then
		bin=$(pg_bin)
		as_pg "$bin/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >/dev/null || {
			echo "pg.sh: pg_ctl stop failed; log follows" >&2
			cat "$LOG" >&2 || true
			return 1
		}
	fi
	rm -rf "$DIR"
}

start() {
	local bin i
	bin=$(pg_bin)
	# A leftover cluster from an interrupted run would hold the port: stop it first.
	stop
	mkdir -p "$DIR"
	chmod 700 "$DIR"
	if [ "$(id -u)" -eq 0 ]; then
		chown postgres:postgres "$DIR"
	fi
	as_pg "$bin/initdb" -D "$DATA" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 || {
		echo "pg.sh: initdb failed; output follows" >&2
		cat "$DIR/initdb.log" >&2
		exit 1
	}
	if ! as_pg "$bin/pg_ctl" -D "$DATA" -l "$LOG" -w -t 30 \
		-o "-k $DIR -p $PORT -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=200" \
		start >/dev/null; then
		echo "pg.sh: PostgreSQL did not start on 127.0.0.1:$PORT; log follows" >&2
		cat "$LOG" >&2 || true
		exit 1
	fi
	# pg_ctl -w already waited; also confirm that TCP on the loopback address answers (bounded).
	for i in $(seq 1 50); do
		if "$bin/pg_isready" -q -h 127.0.0.1 -p "$PORT" -U postgres; then
			dsn
			return 0
		fi
		sleep 0.2
	done
	echo "pg.sh: PostgreSQL is not accepting connections on 127.0.0.1:$PORT after $i tries" >&2
	cat "$LOG" >&2 || true
	exit 1
}

case "${1:-}" in
start) start ;;
stop) stop ;;
dsn) dsn ;;
*)
	echo "usage: $0 start|stop|dsn" >&2
	exit 2
	;;
esac
