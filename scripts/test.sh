#!/usr/bin/env bash
# The full check run by `make test` (after `make deps build`): widget checks, Go formatting, vet,
# the libc pin, Go tests against SQLite and a throwaway PostgreSQL, then the browser e2e suite.
# PostgreSQL is stopped on every exit path by the EXIT trap, including failures and Ctrl-C.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# Each heading shows the seconds since the start, so a slow step is found in the log (make test's
# budget is 20 minutes).
section() { printf '\n==== %s (at %ds) ====\n' "$*" "$SECONDS"; }

section "widget: typecheck"
(cd web/widget && npm run --silent typecheck)

section "widget: unit tests"
(cd web/widget && npm test)

section "widget: bundle size budget"
(cd web/widget && npm run --silent size)

section "go: modernc.org/libc pin"
scripts/check-libc-pin.sh

section "go: gofmt"
# Only our sources: node_modules trees sometimes ship stray .go files.
unformatted=$(find . \( -name node_modules -o -name .git -o -path ./tmp -o -path ./bin -o -path ./data \) -prune \
	-o -name '*.go' -type f -print0 | xargs -0 -r gofmt -l)
if [ -n "$unformatted" ]; then
	echo "gofmt: these files need formatting (run gofmt -w):" >&2
	printf '%s\n' "$unformatted" >&2
	exit 1
fi
echo "ok"

section "go: vet"
go vet ./...

section "PostgreSQL: start"
trap 'scripts/pg.sh stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
LATCHKEY_TEST_POSTGRES_DSN=$(scripts/pg.sh start)
export LATCHKEY_TEST_POSTGRES_DSN
echo "$LATCHKEY_TEST_POSTGRES_DSN"

section "go: tests (SQLite and PostgreSQL)"
LATCHKEY_TEST_MAILPIT="$ROOT/bin/mailpit" go test -count=1 ./...

section "go: race detector over the packages that own concurrency (SQLite and PostgreSQL)"
# The plain run above never looks for data races. These packages own
# goroutines and shared state that every request touches: the change feed
# (its semaphore and watchdog, what it invalidates), the statement-cache
# buffers, metrics, key sets, the GC tuner, the sweeper, telemetry, and
# trustedauth's JWKS cache. The rest (internal/app, session, store, notify,
# ratelimit and the domain packages) take 1 to 10 minutes each under -race
# on two cores, past make test's 20-minute budget; run them by hand before
# a release: CGO_ENABLED=1 go test -race -timeout 60m ./... (all were clean
# when this pass was added).
CGO_ENABLED=1 go test -race -count=1 \
	./internal/changefeed/... ./internal/syncbuf/... ./internal/metrics/... ./internal/keyset/... \
	./internal/gctune/... ./internal/sweeper/... ./internal/telemetry/...
CGO_ENABLED=1 go test -race -count=1 -run 'Keys|OneFetch' ./internal/trustedauth/

section "go: fuzz targets (briefly, past the committed seed corpora)"
scripts/fuzz.sh

section "PostgreSQL: stop"
# Free its memory before the browsers start; the EXIT trap's second stop is a no-op.
scripts/pg.sh stop
echo "stopped"

section "e2e: browser tests (Chromium)"
(cd e2e && npm test)

section "all checks passed"
