# Helpers for scripts/bench-peers.sh (sourced, not run): start a server and time it to ready,
# read its idle memory, load it with wrk while counting its CPU, and print the table.
# Each server's own file (latchkey.sh, pocketbase.sh, kratos.sh) only sets the server up.

say() { printf '\n== %s\n' "$*"; }
die() { echo "bench-peers: $*" >&2; exit 1; }

# Every server this run starts, so the EXIT trap stops them by pid (never by name).
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do stop "$p"; done
	rm -f "$PEERS"/wrk-*.lua
}
trap cleanup EXIT

stop() { # pid: SIGTERM, wait for it to go, and forget it (a reused pid must never be signalled)
	local p keep=()
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	PIDS=("${keep[@]}")
}

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

json() { # python-expression: reads JSON on stdin as j and prints the expression
	python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"
}

# probe PORT PATH: true when GET PATH answers 200. It uses bash's /dev/tcp, not curl, so polling
# forks no process and the start time it measures is the server's, not curl's.
probe() {
	local line=
	{ exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
	printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
	IFS= read -r -t 2 line <&3 || true
	exec 3>&- 3<&-
	[[ $line == HTTP/1.?' 200'* ]]
}

# wait_ready PID LOG PORT PATH: polls PATH until it answers 200; dies (showing LOG) when PID exits
# first or after 60 s.
wait_ready() {
	local t0=${EPOCHREALTIME/./}
	until probe "$3" "$4"; do
		kill -0 "$1" 2>/dev/null || { cat "$2" >&2; die "the server logging to $2 exited before it was ready"; }
		(( ${EPOCHREALTIME/./} - t0 < 60000000 )) || { cat "$2" >&2; die "127.0.0.1:$3$4 not ready after 60 s"; }
		sleep 0.002
	done
}

# start_timed LOG PORT READY_PATH COMMAND...: runs COMMAND in the background (output to LOG) and
# sets SERVER_PID, COLD_MS and RSS_MIB. COLD_MS is the time from exec to the first 200 of
# READY_PATH, as `make bench` measures Latchkey's cold start: the median of STARTS starts (the
# figure is the noisiest of the table), each but the last stopped once ready. RSS_MIB is VmRSS
# after IDLE seconds of idle, as `make bench` reads it.
start_timed() {
	local log=$1 port=$2 path=$3 t0 i times=()
	shift 3
	for i in $(seq "$STARTS"); do
		t0=${EPOCHREALTIME/./}
		"$@" >"$log" 2>&1 &
		SERVER_PID=$!
		PIDS+=("$SERVER_PID")
		wait_ready "$SERVER_PID" "$log" "$port" "$path"
		times+=($(( (${EPOCHREALTIME/./} - t0) / 1000 )))
		if (( i < STARTS )); then stop "$SERVER_PID"; fi
	done
	COLD_MS=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	sleep "$IDLE"
	RSS_MIB=$(awk '/^VmRSS:/ {printf "%.1f", $2/1024}' "/proc/$SERVER_PID/status")
}

# wrk_script METHOD BODY HEADER...: a wrk Lua script sending one fixed request ("Name: value" headers).
wrk_script() {
	local f h
	f=$(mktemp "$PEERS/wrk-XXXX.lua")
	{
		echo "wrk.method = \"$1\""
		[ -n "$2" ] && printf 'wrk.body = [[%s]]\n' "$2"
		echo 'wrk.headers["Content-Type"] = "application/json"'
		shift 2
		for h in "$@"; do printf 'wrk.headers["%s"] = [[%s]]\n' "${h%%: *}" "${h#*: }"; done
	} >"$f"
	echo "$f"
}

ticks() { awk '{print $14+$15}' "/proc/$1/stat"; } # user+system CPU of pid (all threads), in clock ticks

to_ms() { # a wrk latency (850.00us, 12.34ms, 1.02s) in ms
	awk -v v="$1" 'BEGIN{ n=v+0; if (v ~ /us$/) n/=1000; else if (v ~ /ms$/) n=n; else if (v ~ /m$/) n*=60000; else if (v ~ /s$/) n*=1000; printf "%.2f", n }'
}

# load NAME SCRIPT URL: a 1 s warm-up, then DURATION of wrk with CONNECTIONS, counting the CPU
# ticks of SERVER_PID over the measured run. Appends a row (with COLD_MS and RSS_MIB) to RESULTS.
RESULTS=()
load() {
	local name=$1 script=$2 url=$3 out c0 c1 n rps p99 cpu
	wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d1s -s "$script" "$url" >/dev/null
	c0=$(ticks "$SERVER_PID")
	out=$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 30s --latency -s "$script" "$url")
	c1=$(ticks "$SERVER_PID")
	if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then echo "$out" >&2; die "$name: errors under load"; fi
	rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
	p99=$(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")
	n=$(awk '/requests in/ {print $1}' <<<"$out")
	cpu=$(awk -v c=$((c1 - c0)) -v t="$(getconf CLK_TCK)" -v n="$n" 'BEGIN{printf "%.3f", c/t*1000/n}')
	RESULTS+=("$name|$rps|$p99|$cpu|$COLD_MS|$RSS_MIB")
	printf '%-40s %7s req/s  p99 %7s ms  CPU %s ms/req  cold start %s ms  idle RSS %s MiB\n' \
		"$name" "$rps" "$p99" "$cpu" "$COLD_MS" "$RSS_MIB"
}

row() { printf '| %-40s | %10s | %9s | %10s | %10s | %9s |\n' "$@"; }

# table: every result, then one ratio row per Latchkey face and peer (Latchkey / peer in every
# column: above 1 is better for req/s, below 1 is better for the others).
table() {
	local r l p ln lv pn pv i
	row Server "req/s" "p99 ms" "CPU ms/req" "cold ms" "RSS MiB"
	row "$(printf -- '-%.0s' {1..40})" "----------" "---------" "----------" "----------" "---------"
	for r in "${RESULTS[@]}"; do IFS='|' read -r -a f <<<"$r"; row "${f[@]}"; done
	for l in "${RESULTS[@]}"; do
		[[ $l == Latchkey* ]] || continue
		IFS='|' read -r -a lv <<<"$l"
		for p in "${RESULTS[@]}"; do
			[[ $p == Latchkey* ]] && continue
			IFS='|' read -r -a pv <<<"$p"
			ln=${lv[0]#Latchkey }; pn=${pv[0]%% *}
			local out=("ratio Latchkey $ln / $pn")
			for i in 1 2 3 4 5; do out+=("$(awk -v a="${lv[$i]}" -v b="${pv[$i]}" 'BEGIN{ if (b+0 == 0) print "-"; else printf "%.2fx", a/b }')"); done
			row "${out[@]}"
		done
	done
}
