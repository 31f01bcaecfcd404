# Builds the peers from the Go module proxy into $PEERS (sourced by scripts/bench-peers.sh). Each
# binary is built once and kept; delete tmp/peers to rebuild. On 2 cores the first build takes
# several minutes for PocketBase and many more for Kratos.

PB_VERSION=v0.39.11
KRATOS_VERSION=v1.3.1 # the newest version the module proxy serves

# PocketBase: a scratch module that requires it, so PocketBase's own go.mod and go.sum decide every
# dependency version, as `go install` would. (`go install M@v` itself fails on proxies that block
# version lists: its deprecation check reads the list.)
build_pocketbase() {
	local dir=$PEERS/build-pocketbase
	[ -x "$PEERS/pocketbase" ] && return 0
	say "building PocketBase $PB_VERSION (examples/base) from the module proxy (once; several minutes)"
	rm -rf "$dir" && mkdir -p "$dir"
	(
		cd "$dir"
		go mod init peers.local/pocketbase >/dev/null 2>&1
		go get "github.com/pocketbase/pocketbase/examples/base@$PB_VERSION" 2>"$dir/get.log" ||
			{ cat "$dir/get.log" >&2; exit 1; }
		CGO_ENABLED=0 go build -trimpath -o "$PEERS/pocketbase.part" github.com/pocketbase/pocketbase/examples/base
	)
	mv "$PEERS/pocketbase.part" "$PEERS/pocketbase"
}

# Kratos: built inside its own module, because its go.mod has replace directives (ory's forks of
# gorilla/sessions and pop, a pinned mattn/go-sqlite3) that are ignored when it is a dependency.
build_kratos() {
	local src dir=$PEERS/src-kratos
	[ -x "$PEERS/kratos" ] && return 0
	say "building Ory Kratos $KRATOS_VERSION (-tags sqlite) from the module proxy (once; many minutes)"
	src=$(go mod download -json "github.com/ory/kratos@$KRATOS_VERSION" | json 'j["Dir"]')
	rm -rf "$dir" && cp -r "$src" "$dir" && chmod -R u+w "$dir"
	(
		cd "$dir"
		# Its go.mod replaces github.com/ory/client-go with ./internal/client-go, a nested module that
		# module zips leave out. Only the examples import it, so the replace can simply go.
		go mod edit -dropreplace github.com/ory/client-go
		# -tags sqlite compiles in the SQLite driver, mattn/go-sqlite3, which needs cgo. The version
		# stamp is what Ory's release Dockerfile sets (else it runs as "master" and warns that the
		# config's version differs).
		CGO_ENABLED=1 go build -trimpath -tags sqlite -o "$PEERS/kratos.part" \
			-ldflags "-X github.com/ory/kratos/driver/config.Version=$KRATOS_VERSION" .
	)
	mv "$PEERS/kratos.part" "$PEERS/kratos"
}

build_peers() {
	command -v cc >/dev/null || die "Kratos's SQLite driver needs cgo: install a C compiler (apt-get install gcc)"
	build_pocketbase
	build_kratos
}
