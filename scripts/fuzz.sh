#!/usr/bin/env bash
# Runs every Go fuzz target (func FuzzX(f *testing.F) in a _test.go file) briefly: FUZZTIME each
# (default 2s), one worker, so `make test` explores a little past the committed seed corpora
# (testdata/fuzz/FuzzX/ beside each target) every run. Targets are found, not listed, so a new
# one runs without editing this script. A failure leaves its input in testdata/fuzz/FuzzX/:
# commit it with the fix, and it stays a regression case for plain `go test`.
# Usage: scripts/fuzz.sh [package-dir...]   (default: every package with a fuzz target)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
FUZZTIME=${FUZZTIME:-2s}
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
	mapfile -t dirs < <(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' internal cmd 2>/dev/null \
		| xargs -r -n1 dirname | sort -u)
fi
for d in "${dirs[@]}"; do
	for target in $(grep -h -oE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' "$d"/*_test.go | sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' | sort -u); do
		echo "fuzz: ./$d $target ($FUZZTIME)"
		run() { go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" -parallel=1 "./$d/" >/tmp/fuzz.$$.log 2>&1; }
		# The fuzz engine sometimes reports "context deadline exceeded" when -fuzztime ends during a
		# slow input, without a finding (no new file under testdata/fuzz). That is the engine stopping,
		# not a failure of our code: run the target once more, and fail if it fails again.
		run || { grep -q 'context deadline exceeded' /tmp/fuzz.$$.log && [ -z "$(git status --porcelain -- "$d/testdata/fuzz/$target")" ] && run; } || {
			cat /tmp/fuzz.$$.log >&2
			rm -f /tmp/fuzz.$$.log
			echo "fuzz: $target in ./$d failed; the input is in ./$d/testdata/fuzz/$target/" >&2
			exit 1
		}
	done
done
rm -f /tmp/fuzz.$$.log
echo "fuzz: ok"
