# PocketBase (examples/base): POST /api/collections/users/auth-refresh with a user's token, its
# session check (it verifies the token, loads the user and signs a fresh token). Sourced by
# scripts/bench-peers.sh.

bench_pocketbase() {
	local dir=$PEERS/pb-data port admin token s api
	say "PocketBase $PB_VERSION"
	rm -rf "$dir" && mkdir -p "$dir"
	port=$(freeport)
	api=http://127.0.0.1:$port/api
	# Creates and migrates the database, and the superuser that configures it below.
	"$PEERS/pocketbase" superuser upsert admin@peers.test peers-admin-pw-1 --dir "$dir" >"$dir/setup.log" 2>&1
	# No --dev (that logs every SQL statement); the hooks and public folders inside $dir do not exist.
	start_timed "$dir/serve.log" "$port" /api/health "$PEERS/pocketbase" serve --http "127.0.0.1:$port" --dir "$dir" \
		--hooksDir "$dir/pb_hooks" --publicDir "$dir/pb_public"
	admin=$(curl -fsS -H 'Content-Type: application/json' -d '{"identity":"admin@peers.test","password":"peers-admin-pw-1"}' \
		"$api/collections/_superusers/auth-with-password" | json 'j["token"]')
	# Request logs off (logs.maxDays 0): by default PocketBase writes every request to its logs
	# database, which the other servers do not do for a successful check.
	curl -fsS -X PATCH -H "Authorization: $admin" -H 'Content-Type: application/json' -d '{"logs":{"maxDays":0}}' \
		"$api/settings" >/dev/null
	# The stock "users" collection (email + password auth) with one user.
	curl -fsS -H "Authorization: $admin" -H 'Content-Type: application/json' \
		-d '{"email":"peer@peers.test","password":"peers-user-pw-1","passwordConfirm":"peers-user-pw-1"}' \
		"$api/collections/users/records" >/dev/null
	token=$(curl -fsS -H 'Content-Type: application/json' -d '{"identity":"peer@peers.test","password":"peers-user-pw-1"}' \
		"$api/collections/users/auth-with-password" | json 'j["token"]')
	curl -fsS -X POST -H "Authorization: $token" "$api/collections/users/auth-refresh" >/dev/null
	s=$(wrk_script POST "" "Authorization: $token")
	load "PocketBase auth-refresh" "$s" "$api/collections/users/auth-refresh"
	stop "$SERVER_PID"
}
