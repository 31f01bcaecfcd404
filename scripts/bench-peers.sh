#!/usr/bin/env bash
# `make bench-peers`: session checks of Latchkey and of the servers users would pick instead, under
# the same load generator (wrk, 50 connections) in one run, with the ratios.
#   - PocketBase v0.39.11 (examples/base), request logs off: POST /api/collections/users/auth-refresh
#   - Ory Kratos v1.3.1 built with -tags sqlite: GET /sessions/whoami
#   - Latchkey bin/latchkey: POST /v1/b2b/sessions/authenticate (backend face) and the SDK face
# Peers are built from the Go module proxy into tmp/peers (once). Servers listen on loopback only
# and are stopped by their pids. DURATION (default 10s) and CONNECTIONS (50) tune the load.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
PEERS=$ROOT/tmp/peers
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
mkdir -p "$PEERS"
command -v wrk >/dev/null || { [ "$(id -u)" -eq 0 ] && apt-get install -y -q wrk >/dev/null; } || { echo "install wrk" >&2; exit 1; }
[ -x bin/latchkey ] || make build

say() { printf '\n== %s\n' "$*"; }
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
waitfor() { # url [max seconds]
	for _ in $(seq 1 $(( ${2:-60} * 10 ))); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "bench-peers: $1 did not answer" >&2; return 1
}

# build MODULE@VERSION PACKAGE OUT [TAGS [CGO]]: a scratch module that requires the peer, so its own
# go.mod (and go.sum) decide the dependency versions, as `go install` would.
build() {
	local mod=$1 pkg=$2 out=$3 tags=${4:-} cgo=${5:-0} dir
	[ -x "$out" ] && return 0
	dir=$PEERS/build-$(basename "$out")
	rm -rf "$dir" && mkdir -p "$dir"
	say "building $pkg from $mod (once; several minutes)"
	(cd "$dir" && go mod init peers.local/$(basename "$out") >/dev/null 2>&1 && go get "$mod" "$pkg@${mod#*@}" >/dev/null &&
		CGO_ENABLED=$cgo go build -trimpath ${tags:+-tags $tags} -o "$out" "$pkg")
}
build github.com/pocketbase/pocketbase@v0.39.11 github.com/pocketbase/pocketbase/examples/base "$PEERS/pocketbase"
# Kratos must be built inside its own module: its go.mod replaces gorilla/sessions with ory's fork
# (replace directives are ignored when it is a dependency). Its SQLite driver, mattn/go-sqlite3,
# needs cgo (a C compiler).
if [ ! -x "$PEERS/kratos" ]; then
	say "building Ory Kratos v1.3.1 in its own module (once; many minutes)"
	src=$(go mod download -json github.com/ory/kratos@v1.3.1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
	rm -rf "$PEERS/src-kratos" && cp -r "$src" "$PEERS/src-kratos" && chmod -R u+w "$PEERS/src-kratos"
	(cd "$PEERS/src-kratos" && CGO_ENABLED=1 go build -trimpath -tags sqlite -o "$PEERS/kratos" .)
fi

lua() { # method headerline body -> script path
	local f; f=$(mktemp "$PEERS/wrk-XXXX.lua")
	{ echo "wrk.method = \"$1\""; [ -n "$3" ] && echo "wrk.body = [[$3]]"; echo 'wrk.headers["Content-Type"] = "application/json"'; echo "$2"; } >"$f"
	echo "$f"
}
RESULTS=()
measure() { # name script url pid
	local out rps p99 cpu0 cpu1 n tck
	tck=$(getconf CLK_TCK)
	cpu0=$(awk '{print $14+$15}' "/proc/$4/stat")
	out=$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$2" "$3")
	cpu1=$(awk '{print $14+$15}' "/proc/$4/stat")
	if grep -q "Non-2xx" <<<"$out"; then echo "$out" >&2; echo "bench-peers: $1 answered errors" >&2; exit 1; fi
	rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
	p99=$(awk '/ 99%/ {print $2}' <<<"$out")
	n=$(awk '/requests in/ {print $1}' <<<"$out")
	RESULTS+=("$1|$rps|$p99|$(awk -v c=$((cpu1-cpu0)) -v t="$tck" -v n="$n" 'BEGIN{printf "%.3f", c/t*1000/n}')")
	printf '%-44s %10s req/s  p99 %-9s\n' "$1" "$rps" "$p99"
}

# --- Latchkey
say "Latchkey"
LK=$PEERS/latchkey-data && rm -rf "$LK" && mkdir -p "$LK"
PORT=$(freeport)
KEY=$(head -c 32 /dev/urandom | base64)
LATCHKEY_DATABASE_URL=$LK/lk.db LATCHKEY_ENCRYPTION_KEY=$KEY LATCHKEY_BASE_URL=http://127.0.0.1:$PORT bin/latchkey migrate >/dev/null
CREATED=$(LATCHKEY_DATABASE_URL=$LK/lk.db LATCHKEY_ENCRYPTION_KEY=$KEY bin/latchkey project create --name Peers --redirect-url http://127.0.0.1:$PORT/)
PID_=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["project_id"])' "$CREATED")
SECRET=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["secret"])' "$CREATED")
PUB=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["public_token"])' "$CREATED")
LATCHKEY_DATABASE_URL=$LK/lk.db LATCHKEY_ENCRYPTION_KEY=$KEY LATCHKEY_BASE_URL=http://127.0.0.1:$PORT \
	bin/latchkey dev --addr 127.0.0.1:$PORT >"$LK/log" 2>&1 &
PIDS+=($!); LKPID=$!
waitfor "http://127.0.0.1:$PORT/readyz"
B="-u $PID_:$SECRET -H Content-Type:application/json"
ORG=$(curl -fsS $B -d '{"organization_name":"Peers","organization_slug":"peers","email_jit_provisioning":"ALL_ALLOWED"}' \
	"http://127.0.0.1:$PORT/v1/b2b/organizations" | python3 -c 'import json,sys; print(json.load(sys.stdin)["organization"]["organization_id"])')
curl -fsS $B -d "{\"organization_id\":\"$ORG\",\"email_address\":\"peer@peers.test\"}" "http://127.0.0.1:$PORT/v1/b2b/otps/email/login_or_signup" >/dev/null
CODE=$(curl -fsS "http://127.0.0.1:$PORT/dev/mailbox/messages" | python3 -c 'import json,sys
m=json.load(sys.stdin); m=m.get("messages",m) if isinstance(m,dict) else m
print([x for x in m if x.get("recipient","").startswith("peer@") or "peer@" in json.dumps(x)][0]["codes"][0])')
TOKEN=$(curl -fsS $B -d "{\"organization_id\":\"$ORG\",\"email_address\":\"peer@peers.test\",\"code\":\"$CODE\"}" \
	"http://127.0.0.1:$PORT/v1/b2b/otps/email/authenticate" | python3 -c 'import json,sys; print(json.load(sys.stdin)["session_token"])')
AUTH=$(printf '%s:%s' "$PID_" "$SECRET" | base64 -w0)
S=$(lua POST "wrk.headers[\"Authorization\"] = \"Basic $AUTH\"" "{\"session_token\":\"$TOKEN\"}")
measure "Latchkey backend sessions/authenticate" "$S" "http://127.0.0.1:$PORT/v1/b2b/sessions/authenticate" "$LKPID"
AUTH=$(printf '%s:%s' "$PUB" "$TOKEN" | base64 -w0)
S=$(lua POST "wrk.headers[\"Authorization\"] = \"Basic $AUTH\"" "{}")
measure "Latchkey SDK sessions/authenticate" "$S" "http://127.0.0.1:$PORT/sdk/v1/b2b/sessions/authenticate" "$LKPID"
kill "$LKPID"; wait "$LKPID" 2>/dev/null || true

# --- PocketBase
say "PocketBase v0.39.11"
PB=$PEERS/pb-data && rm -rf "$PB" && mkdir -p "$PB"
PORT=$(freeport)
"$PEERS/pocketbase" superuser upsert admin@peers.test 'peers-admin-pw-1' --dir "$PB" >/dev/null
"$PEERS/pocketbase" serve --http 127.0.0.1:$PORT --dir "$PB" >"$PB/log" 2>&1 &
PIDS+=($!); PBPID=$!
waitfor "http://127.0.0.1:$PORT/api/health"
ADMIN=$(curl -fsS -H Content-Type:application/json -d '{"identity":"admin@peers.test","password":"peers-admin-pw-1"}' \
	"http://127.0.0.1:$PORT/api/collections/_superusers/auth-with-password" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
curl -fsS -X PATCH -H "Authorization: $ADMIN" -H Content-Type:application/json -d '{"logs":{"maxDays":0}}' "http://127.0.0.1:$PORT/api/settings" >/dev/null
curl -fsS -H "Authorization: $ADMIN" -H Content-Type:application/json \
	-d '{"email":"peer@peers.test","password":"peers-user-pw-1","passwordConfirm":"peers-user-pw-1"}' \
	"http://127.0.0.1:$PORT/api/collections/users/records" >/dev/null
UTOK=$(curl -fsS -H Content-Type:application/json -d '{"identity":"peer@peers.test","password":"peers-user-pw-1"}' \
	"http://127.0.0.1:$PORT/api/collections/users/auth-with-password" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
S=$(lua POST "wrk.headers[\"Authorization\"] = \"$UTOK\"" "")
measure "PocketBase users/auth-refresh (logs off)" "$S" "http://127.0.0.1:$PORT/api/collections/users/auth-refresh" "$PBPID"
kill "$PBPID"; wait "$PBPID" 2>/dev/null || true

# --- Kratos
say "Ory Kratos v1.3.1"
KR=$PEERS/kratos-data && rm -rf "$KR" && mkdir -p "$KR"
PUBP=$(freeport); ADMP=$(freeport)
cat >"$KR/identity.schema.json" <<'JSON'
{"$id":"peers","$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"traits":{"type":"object",
"properties":{"email":{"type":"string","format":"email","ory.sh/kratos":{"credentials":{"password":{"identifier":true}}}}},
"required":["email"]}}}
JSON
cat >"$KR/kratos.yml" <<YML
dsn: sqlite://$KR/kratos.db?_fk=true&mode=rwc
serve:
  public: {host: 127.0.0.1, port: $PUBP, base_url: http://127.0.0.1:$PUBP/}
  admin: {host: 127.0.0.1, port: $ADMP}
selfservice:
  default_browser_return_url: http://127.0.0.1:$PUBP/
  methods: {password: {enabled: true}}
  flows: {login: {ui_url: http://127.0.0.1:$PUBP/login}, registration: {ui_url: http://127.0.0.1:$PUBP/registration}}
identity:
  default_schema_id: peers
  schemas: [{id: peers, url: file://$KR/identity.schema.json}]
log: {level: error}
secrets: {cookie: [peers-cookie-secret-0123456789abcdef], cipher: [peers-cipher-secret-0123456789ab]}
courier: {smtp: {connection_uri: smtp://127.0.0.1:1/}}
YML
"$PEERS/kratos" migrate sql -e --yes -c "$KR/kratos.yml" >"$KR/migrate.log" 2>&1 || DSN="sqlite://$KR/kratos.db?_fk=true&mode=rwc" "$PEERS/kratos" migrate sql -e --yes >"$KR/migrate.log" 2>&1
"$PEERS/kratos" serve -c "$KR/kratos.yml" --watch-courier=false >"$KR/log" 2>&1 &
PIDS+=($!); KRPID=$!
waitfor "http://127.0.0.1:$ADMP/admin/health/ready"
curl -fsS -H Content-Type:application/json -d '{"schema_id":"peers","traits":{"email":"peer@peers.test"},
	"credentials":{"password":{"config":{"password":"peers-user-pw-1-long"}}}}' "http://127.0.0.1:$ADMP/admin/identities" >/dev/null
FLOW=$(curl -fsS "http://127.0.0.1:$PUBP/self-service/login/api" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
KTOK=$(curl -fsS -H Content-Type:application/json -d '{"method":"password","identifier":"peer@peers.test","password":"peers-user-pw-1-long"}' \
	"http://127.0.0.1:$PUBP/self-service/login?flow=$FLOW" | python3 -c 'import json,sys; print(json.load(sys.stdin)["session_token"])')
S=$(lua GET "wrk.headers[\"X-Session-Token\"] = \"$KTOK\"" "")
measure "Kratos sessions/whoami" "$S" "http://127.0.0.1:$PUBP/sessions/whoami" "$KRPID"
kill "$KRPID"; wait "$KRPID" 2>/dev/null || true

say "side by side ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), wrk $CONNECTIONS connections, $DURATION)"
base=$(cut -d'|' -f2 <<<"${RESULTS[0]}")
printf '| %-42s | %12s | %10s | %14s | %-22s |\n' Server req/s p99 "CPU ms/req" "Latchkey backend is"
printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..44})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..12})" "$(printf -- '-%.0s' {1..16})" "$(printf -- '-%.0s' {1..24})"
for r in "${RESULTS[@]}"; do
	IFS='|' read -r name rps p99 cpu <<<"$r"
	printf '| %-42s | %12s | %10s | %14s | %-22s |\n' "$name" "$rps" "$p99" "$cpu" "$(awk -v a="$base" -v b="$rps" 'BEGIN{printf "%.2fx", a/b}')"
done
