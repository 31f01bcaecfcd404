#!/usr/bin/env bash
# modernc.org/sqlite is only correct with the exact modernc.org/libc version its own go.mod requires
# (upstream calls this a fragile dependency): a newer libc pulled in by some other module compiles
# fine and then misbehaves at run time. Fail when the selected libc differs from sqlite's requirement.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

sqlite=$(go list -m -f '{{.Version}}' modernc.org/sqlite)
have=$(go list -m -f '{{.Version}}' modernc.org/libc)
# `go mod graph` lists each module's own requirements as "module@version requirement@version".
want=$(go mod graph | awk -v from="modernc.org/sqlite@$sqlite" '
	$1 == from && index($2, "modernc.org/libc@") == 1 { sub(/^modernc\.org\/libc@/, "", $2); print $2 }')

if [ -z "$want" ]; then
	echo "check-libc-pin: could not find the modernc.org/libc requirement of modernc.org/sqlite@$sqlite in 'go mod graph'" >&2
	exit 1
fi
if [ "$have" != "$want" ]; then
	echo "check-libc-pin: modernc.org/libc is $have but modernc.org/sqlite@$sqlite requires exactly $want." >&2
	echo "  Pin it: go mod edit -require=modernc.org/libc@$want && go mod tidy" >&2
	exit 1
fi
echo "check-libc-pin: ok (modernc.org/sqlite $sqlite, modernc.org/libc $have)"
