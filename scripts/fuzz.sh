#!/usr/bin/env bash
# Runs every Go fuzz target (func FuzzX(f *testing.F) in a _test.go file) briefly: FUZZTIME each
# (default 2000x: two thousand inputs), one worker, so `make test` explores a little past the
# committed seed corpora (testdata/fuzz/FuzzX/ beside each target) every run. Targets are found, not
# listed, so a new one runs without editing this script. A failure leaves its input in
# testdata/fuzz/FuzzX/: commit it with the fix, and it stays a regression case for plain `go test`.
#
# The default is a count, not a duration: with a duration the fuzz engine's coordinator races its
# own deadline (golang/go#51484, #75804) and, on a loaded machine, fails the run with a bare
# "context deadline exceeded" and no input; a retry can hit it again, since the engine's cache
# replays the same inputs first (CI failed so on 2026-12-01, twice in a row on one target). A count
# has no deadline to race. Two thousand inputs cost about what two seconds did (the whole pass is
# ~1m45s here, mostly compiling). A duration still works for a longer run by hand: FUZZTIME=1m scripts/fuzz.sh internal/phone
# Usage: scripts/fuzz.sh [package-dir...]   (default: every package with a fuzz target)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
FUZZTIME=${FUZZTIME:-2000x}
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
	mapfile -t dirs < <(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' internal cmd 2>/dev/null \
		| xargs -r -n1 dirname | sort -u)
fi
for d in "${dirs[@]}"; do
	for target in $(grep -h -oE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' "$d"/*_test.go | sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' | sort -u); do
		echo "fuzz: ./$d $target ($FUZZTIME)"
		run() { go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" -parallel=1 "./$d/" >/tmp/fuzz.$$.log 2>&1; }
		# With a duration (by hand), the engine may stop with "context deadline exceeded" and no
		# finding (no new file under testdata/fuzz): the deadline race above, not our code. Run the
		# target once more, and fail if it fails again.
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
