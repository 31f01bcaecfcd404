# Latchkey build and test entry points. `make help` lists the targets.
# Everything heavy lives in scripts/ so that it can use traps and proper error handling.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
# Steps print section headers and depend on each other's order (deps before build before tests);
# the tools they call (go, npm, vite) parallelise internally anyway.
.NOTPARALLEL:

WIDGET := web/widget
# npm ci deletes node_modules first, so only run it when the lockfile changed since the last install.
WIDGET_STAMP := $(WIDGET)/node_modules/.latchkey-ci-stamp

.PHONY: help
help: ## Show this help
	@echo "Usage: make <target>"
	@echo
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-12s %s\n", $$1, $$2}'
	@echo
	@echo "A fresh Debian machine needs only Go 1.26 and Node 20; 'make test' installs the rest (as root)."

$(WIDGET_STAMP): $(WIDGET)/package-lock.json
	@printf '\n==== widget: npm ci ====\n'
	cd $(WIDGET) && npm ci --no-audit --no-fund
	touch $@

.PHONY: build
build: $(WIDGET_STAMP) ## Build the widget (npm) and the server binary bin/latchkey (embeds the widget)
	@printf '\n==== build: widget ====\n'
	cd $(WIDGET) && npm run build
	@printf '\n==== build: bin/latchkey ====\n'
	CGO_ENABLED=0 go build -o bin/latchkey ./cmd/latchkey

.PHONY: run
run: build ## Run the dev server on :8080 (SQLite in ./data; demo page at http://localhost:8080/)
	mkdir -p data
	LATCHKEY_DATABASE_URL="$${LATCHKEY_DATABASE_URL:-./data/latchkey.db}" \
	LATCHKEY_BASE_URL="$${LATCHKEY_BASE_URL:-http://localhost:8080}" \
	exec bin/latchkey dev --addr 127.0.0.1:8080

.PHONY: deps
deps: ## Install missing test dependencies (apt: chromium, fonts, postgresql; e2e npm; bin/mailpit)
	@printf '\n==== deps ====\n'
	scripts/deps.sh

.PHONY: test
test: deps build ## Everything CI runs: widget checks, gofmt, vet, libc pin, Go tests (SQLite+PostgreSQL), e2e
	scripts/test.sh

.PHONY: e2e
e2e: deps build ## Only the browser end-to-end tests (e2e/*.test.mjs) against bin/latchkey
	@printf '\n==== e2e: browser tests (Chromium) ====\n'
	cd e2e && npm test

.PHONY: check-libc
check-libc: ## Check that modernc.org/libc is exactly the version modernc.org/sqlite requires
	scripts/check-libc-pin.sh

.PHONY: pg-start pg-stop
pg-start: ## Start a throwaway PostgreSQL on 127.0.0.1:55432 (or LATCHKEY_PG_PORT), print its DSN
	scripts/pg.sh start
pg-stop: ## Stop the throwaway PostgreSQL and delete its data
	scripts/pg.sh stop

.PHONY: bench bench-peers
bench: build ## Every performance figure with its target (median of 3), as one table (installs wrk)
	scripts/bench.sh

bench-peers: build ## Session checks of Latchkey, PocketBase and Ory Kratos side by side under wrk, with ratios
	scripts/bench-peers.sh

.PHONY: clean
clean: ## Remove build outputs, the throwaway PostgreSQL and e2e artifacts (keeps ./data and node_modules)
	scripts/pg.sh stop
	rm -rf bin tmp e2e/artifacts
	find $(WIDGET)/dist -mindepth 1 ! -name .keep -exec rm -rf {} +
