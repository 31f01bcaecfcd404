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
# has no deadline to race. Two thousand inputs cost about what two seconds did; most of the pass is
# compiling (2.5 minutes from a fresh checkout on two cores, 1 minute when built before). A duration still works for a longer run by hand: FUZZTIME=1m scripts/fuzz.sh internal/phone
# Usage: scripts/fuzz.sh [package-dir...]   (default: every package with a fuzz target)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
FUZZTIME=${FUZZTIME:-2000x}
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
	mapfile -t dirs < <(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' internal cmd 2>/dev/null \
		| xargs -r -n1 dirname | sort -u)
fi
# Packages run FUZZJOBS at a time (default: one per core), each package's targets one after another.
# A target is a coordinator and one worker, busy on one core, so one at a time left a core idle
# (warm: 2 minutes against 1). But go test builds an instrumented copy of the test binary and of
# everything it imports, and two targets building the same packages at once each build them: so a
# package's targets share one job, and first, alone, runs one target of the package that imports
# the most (its build leaves the shared packages in the cache for every other job).
FUZZJOBS=${FUZZJOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# A package named by hand may have none: grep's "no match" must not end the script (pipefail, set -e
# in `first=$(...)` below) without a word.
targets_of() { { grep -h -oE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' "$1"/*_test.go || true; } | sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' | sort -u; }

# fuzz_one DIR TARGET runs one target, its output in a log of its own, shown if it fails.
fuzz_one() {
	local d=$1 target=$2
	local log="$logs/${d//\//_}.$target.log"
	echo "fuzz: ./$d $target ($FUZZTIME)"
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

# fuzz_package DIR [SKIP] runs the package's targets in turn, but SKIP.
fuzz_package() {
	local target
	[ -n "$(targets_of "$1")" ] || echo "fuzz: ./$1 has no fuzz target" >&2
	for target in $(targets_of "$1"); do
		[ "$target" = "${2:-}" ] || fuzz_one "$1" "$target" || return 1
	done
}

# The packages, the one whose tests import the most first.
module=$(go list -m)
mapfile -t dirs < <(go list -test -f '{{if .ForTest}}{{len .Deps}} {{.ForTest}}{{end}}' "${dirs[@]/#/./}" \
	| sort -rn | awk '!seen[$2]++ {print $2}' | sed "s|^$module/||")
[ ${#dirs[@]} -gt 0 ] || { echo "fuzz: go list found no package to fuzz" >&2; exit 1; }
first=$(targets_of "${dirs[0]}" | head -1)
if [ -n "$first" ]; then
	fuzz_one "${dirs[0]}" "$first"
else
	echo "fuzz: ./${dirs[0]} has no fuzz target" >&2
fi

failed=0
running=0
for i in "${!dirs[@]}"; do
	if [ "$running" -ge "$FUZZJOBS" ]; then
		wait -n || failed=1
		running=$((running - 1))
	fi
	[ "$failed" = 0 ] || break
	skip=
	[ "$i" != 0 ] || skip=$first
	fuzz_package "${dirs[$i]}" "$skip" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n || failed=1
	running=$((running - 1))
done
[ "$failed" = 0 ] || exit 1
echo "fuzz: ok"
