# Latchkey (bin/latchkey): POST /v1/b2b/sessions/authenticate on the backend face (project secret)
# and on the SDK face (public token), by session token. Sourced by scripts/bench-peers.sh.

bench_latchkey() {
	local dir=$PEERS/latchkey-data port created project secret public org code token lk s
	say "Latchkey ($(git rev-parse --short HEAD 2>/dev/null || echo "?"))"
	rm -rf "$dir" && mkdir -p "$dir"
	port=$(freeport)
	# One environment for every command, so the CLI, `dev` and `serve` share the database and the
	# key that seals its secrets. The breach check (HIBP) is off: there is no internet here.
	lk=(env LATCHKEY_DATABASE_URL="$dir/latchkey.db" LATCHKEY_ENCRYPTION_KEY="$(head -c 32 /dev/urandom | base64)"
		LATCHKEY_BASE_URL="http://127.0.0.1:$port" LATCHKEY_BREACH_API_URL=off "$ROOT/bin/latchkey")
	"${lk[@]}" migrate >"$dir/migrate.log" 2>&1
	created=$("${lk[@]}" project create --name Peers --redirect-url "http://127.0.0.1:$port/")
	project=$(json 'j["project_id"]' <<<"$created")
	secret=$(json 'j["secret"]' <<<"$created")
	public=$(json 'j["public_token"]' <<<"$created")

	# The session comes from a real login (emailed code). `dev` captures mail in its dev mailbox,
	# which `serve` does not mount, so the login runs under `dev` and the measurements under `serve`
	# (the production mode) on the same database afterwards.
	# --force: dev refuses a database holding projects its demo seed did not create (it would open
	# them to its mailbox and mock providers); this one is the bench's own, thrown away after.
	"${lk[@]}" dev --force --addr "127.0.0.1:$port" >"$dir/dev.log" 2>&1 &
	local dev=$!
	PIDS+=("$dev")
	wait_ready "$dev" "$dir/dev.log" "$port" /readyz
	local b=(-fsS -u "$project:$secret" -H 'Content-Type: application/json')
	org=$(curl "${b[@]}" -d '{"organization_name":"Peers","organization_slug":"peers","email_jit_provisioning":"ALL_ALLOWED"}' \
		"http://127.0.0.1:$port/v1/b2b/organizations" | json 'j["organization"]["organization_id"]')
	curl "${b[@]}" -d "{\"organization_id\":\"$org\",\"email_address\":\"peer@peers.test\"}" \
		"http://127.0.0.1:$port/v1/b2b/otps/email/login_or_signup" >/dev/null
	code=$(curl -fsS "http://127.0.0.1:$port/dev/mailbox/messages?to=peer@peers.test" | json 'j["messages"][0]["codes"][0]')
	token=$(curl "${b[@]}" -d "{\"organization_id\":\"$org\",\"email_address\":\"peer@peers.test\",\"code\":\"$code\"}" \
		"http://127.0.0.1:$port/v1/b2b/otps/email/authenticate" | json 'j["session_token"]')
	stop "$dev"

	start_timed "$dir/serve.log" "$port" /readyz "${lk[@]}" serve --addr "127.0.0.1:$port"
	# Check that the request wrk repeats succeeds before timing it.
	curl "${b[@]}" -d "{\"session_token\":\"$token\"}" "http://127.0.0.1:$port/v1/b2b/sessions/authenticate" >/dev/null
	s=$(wrk_script POST "{\"session_token\":\"$token\"}" "Authorization: Basic $(printf '%s:%s' "$project" "$secret" | base64 -w0)")
	load "Latchkey backend" "$s" "http://127.0.0.1:$port/v1/b2b/sessions/authenticate"
	# The SDK face: the browser's session token is the Basic password beside the public token.
	s=$(wrk_script POST '{}' "Authorization: Basic $(printf '%s:%s' "$public" "$token" | base64 -w0)")
	curl -fsS -X POST -H "Authorization: Basic $(printf '%s:%s' "$public" "$token" | base64 -w0)" -H 'Content-Type: application/json' \
		-d '{}' "http://127.0.0.1:$port/sdk/v1/b2b/sessions/authenticate" >/dev/null
	load "Latchkey SDK" "$s" "http://127.0.0.1:$port/sdk/v1/b2b/sessions/authenticate"
	stop "$SERVER_PID"
}
