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
# Targets run FUZZJOBS at a time (default: one per core). Each is a coordinator and one worker,
# busy on one core, and ~2 s of each is go test's build and link, also mostly on one core; one at a
# time, the pass took ~3 minutes of `make test` on two cores.
FUZZJOBS=${FUZZJOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# fuzz_one DIR TARGET runs one target, its output in a log of its own, shown if it fails.
fuzz_one() {
	local d=$1 target=$2
	local log="$logs/${d//\//_}.$target.log"
	run() { go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" -parallel=1 "./$d/" >"$log" 2>&1; }
	# With a duration (by hand), the engine may stop with "context deadline exceeded" and no
	# finding (no new file under testdata/fuzz): the deadline race above, not our code. Run the
	# target once more, and fail if it fails again.
	run || { grep -q 'context deadline exceeded' "$log" && [ -z "$(git status --porcelain -- "$d/testdata/fuzz/$target")" ] && run; } || {
		cat "$log" >&2
		echo "fuzz: $target in ./$d failed; the input is in ./$d/testdata/fuzz/$target/" >&2
		return 1
	}
}

failed=0
running=0
for d in "${dirs[@]}"; do
	for target in $(grep -h -oE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' "$d"/*_test.go | sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' | sort -u); do
		if [ "$running" -ge "$FUZZJOBS" ]; then
			wait -n || failed=1
			running=$((running - 1))
		fi
		[ "$failed" = 0 ] || break 2
		echo "fuzz: ./$d $target ($FUZZTIME)"
		fuzz_one "$d" "$target" &
		running=$((running + 1))
	done
done
while [ "$running" -gt 0 ]; do
	wait -n || failed=1
	running=$((running - 1))
done
[ "$failed" = 0 ] || exit 1
echo "fuzz: ok"
