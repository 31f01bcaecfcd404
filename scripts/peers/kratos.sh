# Ory Kratos (-tags sqlite): GET /sessions/whoami with X-Session-Token, its session check for API
# clients. Sourced by scripts/bench-peers.sh.

bench_kratos() {
	local dir=$PEERS/kratos-data pub adm flow token s
	say "Ory Kratos $KRATOS_VERSION"
	rm -rf "$dir" && mkdir -p "$dir"
	pub=$(freeport)
	adm=$(freeport)
	# The smallest identity schema with a password login: the email trait is the identifier.
	cat >"$dir/identity.schema.json" <<-'JSON'
		{"$id": "peers", "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
		 "properties": {"traits": {"type": "object", "required": ["email"],
		   "properties": {"email": {"type": "string", "format": "email",
		     "ory.sh/kratos": {"credentials": {"password": {"identifier": true}}}}}}}}
	JSON
	# Both listeners on loopback. Its config schema requires a browser return URL, though the API
	# flows used here never redirect. Logs at error: at its default (info) Kratos logs every request,
	# and the other servers do not log a successful check. The breach check (haveibeenpwned) is off:
	# there is no internet here. The courier (email) is not started, so it needs no SMTP server.
	cat >"$dir/kratos.yml" <<-YML
		version: $KRATOS_VERSION
		dsn: sqlite://$dir/kratos.db?_fk=true&mode=rwc
		serve:
		  public: {host: 127.0.0.1, port: $pub, base_url: "http://127.0.0.1:$pub/"}
		  admin: {host: 127.0.0.1, port: $adm, base_url: "http://127.0.0.1:$adm/"}
		selfservice:
		  default_browser_return_url: http://127.0.0.1:$pub/
		  methods:
		    password: {enabled: true, config: {haveibeenpwned_enabled: false}}
		identity:
		  default_schema_id: peers
		  schemas: [{id: peers, url: "file://$dir/identity.schema.json"}]
		log: {level: error}
		secrets:
		  cookie: [peers-cookie-secret-0123456789abcdef]
		  cipher: [peers-cipher-secret-0123456789ab]
	YML
	# Kratos does not migrate on start: its SQL migrations run as their own command.
	"$PEERS/kratos" migrate sql -e --yes -c "$dir/kratos.yml" >"$dir/migrate.log" 2>&1 ||
		{ cat "$dir/migrate.log" >&2; die "kratos migrate failed"; }
	# --sqa-opt-out: no telemetry calls home during the measurement.
	start_timed "$dir/serve.log" "$pub" /health/ready "$PEERS/kratos" serve -c "$dir/kratos.yml" --sqa-opt-out
	wait_ready "$SERVER_PID" "$dir/serve.log" "$adm" /admin/health/ready
	# One identity with a password, made through the admin API, then a session token from the
	# native (API) login flow, the way a mobile or server client gets one.
	curl -fsS -H 'Content-Type: application/json' -d '{"schema_id":"peers","traits":{"email":"peer@peers.test"},
		"credentials":{"password":{"config":{"password":"peers-user-password-1"}}}}' \
		"http://127.0.0.1:$adm/admin/identities" >/dev/null
	flow=$(curl -fsS -H 'Accept: application/json' "http://127.0.0.1:$pub/self-service/login/api" | json 'j["id"]')
	token=$(curl -fsS -H 'Content-Type: application/json' -H 'Accept: application/json' \
		-d '{"method":"password","identifier":"peer@peers.test","password":"peers-user-password-1"}' \
		"http://127.0.0.1:$pub/self-service/login?flow=$flow" | json 'j["session_token"]')
	curl -fsS -H "X-Session-Token: $token" "http://127.0.0.1:$pub/sessions/whoami" >/dev/null
	s=$(wrk_script GET "" "X-Session-Token: $token")
	load "Kratos whoami" "$s" "http://127.0.0.1:$pub/sessions/whoami"
	stop "$SERVER_PID"
}
