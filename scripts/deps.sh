#!/usr/bin/env bash
# Installs what the test suite needs and is missing: Debian packages (Chromium for the browser tests,
# Liberation fonts so pages render with real metrics, PostgreSQL for the Go store tests, gcc for the
# race detector's cgo), the e2e node packages, and the Mailpit SMTP sink built from tools/mailpit.
# Each step is skipped when its result is already present, so running it on every `make test` is cheap.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

say() { printf 'deps: %s\n' "$*"; }

for tool in go node npm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "deps: '$tool' is not on PATH; install Go 1.26 and Node 20 (with npm) first" >&2
		exit 1
	fi
done

# --- Debian packages ---------------------------------------------------------------------------
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg-query -W -f='${Status}' fonts-liberation 2>/dev/null | grep -q 'install ok installed' || missing+=(fonts-liberation)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
# The race detector (go test -race in scripts/test.sh) needs cgo, so a C compiler.
command -v gcc >/dev/null 2>&1 || missing+=(gcc)

if [ "${#missing[@]}" -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing ${missing[*]}; run as root, or install them yourself:" >&2
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium fonts-liberation postgresql gcc" >&2
		exit 1
	fi
	say "installing ${missing[*]} with apt-get"
	# Wait (bounded) for another apt/dpkg run to release its locks instead of failing or racing it.
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update
	apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium fonts-liberation postgresql gcc
fi

# --- e2e node packages -------------------------------------------------------------------------
# npm ci wipes node_modules, so it only runs when the lockfile is newer than the last install.
stamp=e2e/node_modules/.latchkey-ci-stamp
if [ ! -f "$stamp" ] || [ e2e/package-lock.json -nt "$stamp" ]; then
	say "npm ci in e2e/"
	(cd e2e && npm ci --no-audit --no-fund)
	touch "$stamp"
fi

# --- Mailpit -----------------------------------------------------------------------------------
# Built from its own module so its dependency graph (it wants an older modernc sqlite/libc) never
# touches the server's go.mod. `go install …@v` fails here because the proxy blocks its version list.
if [ ! -x bin/mailpit ] || [ tools/mailpit/go.mod -nt bin/mailpit ] || [ tools/mailpit/go.sum -nt bin/mailpit ]; then
	say "building bin/mailpit (takes 1-2 minutes the first time)"
	mkdir -p bin
	(cd tools/mailpit && CGO_ENABLED=0 go build -o ../../bin/mailpit github.com/axllent/mailpit)
fi

say "ok"
