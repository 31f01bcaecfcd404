package idp_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/idp"
)

// clientEvents are the project's audit events of client authentications
// (in no particular order: the test clock stands still).
func clientEvents(t *testing.T, e *apptest.Env) []audit.Event {
	t.Helper()
	all, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Event
	for _, ev := range all {
		if ev.Actor == "oauth_client" {
			out = append(out, ev)
		}
	}
	return out
}

// only is the one event of evs matching keep, which must exist.
func only(t *testing.T, evs []audit.Event, keep func(audit.Event) bool) audit.Event {
	t.Helper()
	var out []audit.Event
	for _, ev := range evs {
		if keep(ev) {
			out = append(out, ev)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d matching events, want 1: %+v", len(out), evs)
	}
	return out[0]
}

// wantClientEvent fails unless ev is a client authentication event of typ
// for method at endpoint about clientID, answered with code, from the
// test's address, and holds none of secrets.
func wantClientEvent(t *testing.T, ev audit.Event, typ, method, clientID, endpoint, code string, secrets ...string) {
	t.Helper()
	d := ev.Details
	if ev.Type != typ || ev.Outcome != audit.Failure || ev.Method != method || d["client_id"] != clientID ||
		d["endpoint"] != endpoint || d["error_type"] != code || ev.IP != "198.51.100.4" || ev.RequestID == "" {
		t.Errorf("event %+v, want %s/%s of %s at %s (%s)", ev, typ, method, clientID, endpoint, code)
	}
	raw, _ := json.Marshal(ev)
	for _, s := range secrets {
		if strings.Contains(string(raw), s) {
			t.Errorf("event %s holds a secret", raw)
		}
	}
}

// Failed client_credentials requests are audit log entries (a login
// failure, method client_credentials, the client id in the details, never
// the secret), whether the client exists or not; once the address is out
// of allowance its refusals are lockouts. A right secret is no entry.
func TestClientCredentialsFailuresAreAudited(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		const chosen = "correct-horse-battery-staple-1234567890"
		apptest.Want(t, e.Backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Job", "scopes": []string{"read:x"},
			"client_id": "job-1", "client_secret": chosen}), 200, "")
		tokenPath := "/v1/public/" + e.Project.Project.ID + "/oauth2/token"
		token := func(id, secret string) apptest.Resp {
			h := http.Header{"X-Forwarded-For": {"198.51.100.4"}, "Content-Type": {"application/x-www-form-urlencoded"}}
			return e.Do("POST", tokenPath, url.Values{"grant_type": {"client_credentials"}}.Encode(), h, id, secret)
		}
		apptest.Want(t, token("job-1", chosen), 200, "")
		if evs := clientEvents(t, e); len(evs) != 0 {
			t.Fatalf("a right secret was audited: %+v", evs)
		}
		const guess = "wrong-guess-wrong-guess-17"
		oauthErr(t, token("job-1", guess), 401, "invalid_client")
		oauthErr(t, token("no-such-job", guess), 401, "invalid_client")
		for range idp.ClientSecretFailuresPerIP.Limit - 2 {
			oauthErr(t, token("job-1", guess), 401, "invalid_client")
		}
		oauthErr(t, token("job-1", chosen), 429, "slow_down")

		evs := clientEvents(t, e)
		if len(evs) != idp.ClientSecretFailuresPerIP.Limit+1 {
			t.Fatalf("%d events, want %d", len(evs), idp.ClientSecretFailuresPerIP.Limit+1)
		}
		failures := 0
		for _, ev := range evs {
			if ev.Type == audit.Login && ev.Details["client_id"] == "job-1" {
				failures++
				wantClientEvent(t, ev, audit.Login, "client_credentials", "job-1", "token", "invalid_client", guess, chosen)
			}
		}
		if failures != idp.ClientSecretFailuresPerIP.Limit-1 {
			t.Errorf("%d failures of job-1 audited", failures)
		}
		wantClientEvent(t, only(t, evs, func(ev audit.Event) bool { return ev.Details["client_id"] == "no-such-job" }),
			audit.Login, "client_credentials", "no-such-job", "token", "invalid_client", guess)
		wantClientEvent(t, only(t, evs, func(ev audit.Event) bool { return ev.Type == audit.Lockout }),
			audit.Lockout, "client_credentials", "job-1", "token", "slow_down", chosen)
	})
}

// A connected app's failed client authentication is an audit entry at
// each endpoint that authenticates it (token, introspection, revocation);
// past the address's allowance a failure is a lockout.
func TestConnectedAppAuthenticationFailuresAreAudited(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		post := func(path, secret string, v url.Values) apptest.Resp {
			h := http.Header{"X-Forwarded-For": {"198.51.100.4"}, "Content-Type": {"application/x-www-form-urlencoded"}}
			return e.Do("POST", "/v1/public/"+e.Project.Project.ID+path, v.Encode(), h, id, secret)
		}
		const guess = "wrong-secret-wrong-secret"
		code := url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "redirect_uri": {rpURL}}
		oauthErr(t, post("/oauth2/token", guess, code), 401, "invalid_client")
		oauthErr(t, post("/oauth2/introspect", guess, url.Values{"token": {"x"}}), 401, "invalid_client")
		oauthErr(t, post("/oauth2/revoke", guess, url.Values{"token": {"x"}}), 401, "invalid_client")
		apptest.Want(t, post("/oauth2/revoke", secret, url.Values{"token": {"x"}}), 200, "")

		evs := clientEvents(t, e)
		if len(evs) != 3 {
			t.Fatalf("%d events, want 3: %+v", len(evs), evs)
		}
		for _, endpoint := range []string{"token", "introspect", "revoke"} {
			wantClientEvent(t, only(t, evs, func(ev audit.Event) bool { return ev.Details["endpoint"] == endpoint }),
				audit.Login, "client_secret", id, endpoint, "invalid_client", guess, secret)
		}
		for range idp.ClientSecretFailuresPerIP.Limit - 3 {
			oauthErr(t, post("/oauth2/revoke", guess, url.Values{"token": {"x"}}), 401, "invalid_client")
		}
		oauthErr(t, post("/oauth2/introspect", guess, url.Values{"token": {"x"}}), 429, "slow_down")
		wantClientEvent(t, only(t, clientEvents(t, e), func(ev audit.Event) bool { return ev.Type == audit.Lockout }),
			audit.Lockout, "client_secret", id, "introspect", "slow_down", guess, secret)
	})
}
