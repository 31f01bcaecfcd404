#!/usr/bin/env bash
# `make bench-peers`: Latchkey's session check beside the ones of the servers users would pick
# instead, under the same load generator (wrk, 1 thread, 50 connections) in one run, with ratios:
#   - Latchkey bin/latchkey `serve`: POST /v1/b2b/sessions/authenticate, backend and SDK faces
#   - PocketBase v0.39.11 (examples/base), request logs off: POST /api/collections/users/auth-refresh
#   - Ory Kratos v1.3.1 built with -tags sqlite: GET /sessions/whoami
# For each server: session checks per second, p99 latency, server CPU per request (its user+system
# ticks over the run / requests), cold start (exec to the first 200 of its readiness URL, on a
# database that already exists; the median of 3 starts) and idle RSS (2 s after ready). All on SQLite.
# The peers are built from the Go module proxy into tmp/peers once (scripts/peers/build.sh). Servers
# listen on loopback only and are stopped by their pids; their data lives in tmp/peers.
# DURATION (default 10s), CONNECTIONS (50), WRK_THREADS (1: with two, two wrk and two server
# threads on two cores made the scheduler's time slices the p99), STARTS (3) and IDLE (2, seconds
# before reading RSS) tune the run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
PEERS=$ROOT/tmp/peers
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
WRK_THREADS=${WRK_THREADS:-1}
IDLE=${IDLE:-2}
STARTS=${STARTS:-3}
mkdir -p "$PEERS"

for f in lib build latchkey pocketbase kratos; do
	# shellcheck source=/dev/null
	source "$ROOT/scripts/peers/$f.sh"
done

if ! command -v wrk >/dev/null; then
	[ "$(id -u)" -eq 0 ] || die "wrk is missing; install it (apt-get install wrk) or run as root"
	say "installing wrk (Debian)"
	apt-get install -y -q wrk >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q wrk >/dev/null; }
fi
[ -x bin/latchkey ] || make build
build_peers

bench_latchkey
bench_pocketbase
bench_kratos

say "side by side: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo "?")"
table
cat <<'EOF'

Ratios are Latchkey / peer: above 1x is better for req/s, below 1x is better for the other columns.
Latchkey's two rows are one process, so they share its cold start and idle RSS.
EOF
