package session_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/config"
)

// jwtPayload decodes a JWT's claims into v without checking its signature
// (the tests that need one verify with the JWKS).
func jwtPayload(jwt string, v any) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("not a JWT: %q", jwt)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// sessionAttributes reads the attributes of a session JWT's session claim,
// where the API family reports the session's client (the Node SDK's
// authenticateJwtLocal returns them as the session's attributes).
func sessionAttributes(t *testing.T, jwt string) map[string]any {
	t.Helper()
	var c struct {
		Session struct {
			Attributes map[string]any `json:"attributes"`
		} `json:"https://stytch.com/session"`
	}
	if err := jwtPayload(jwt, &c); err != nil {
		t.Fatal(err)
	}
	return c.Session.Attributes
}

// viaProxy trusts the test's loopback as a proxy, so each request names
// its client in X-Forwarded-For.
func viaProxy(c *config.Config) { c.TrustedProxies = "127.0.0.1/32,::1/128" }

// loginFrom logs ada@acme.test into a new organization by email code on
// the SDK face, sending hdr (and the customer's Origin) with both calls.
func loginFrom(t *testing.T, e *apptest.Env, hdr http.Header) apptest.Resp {
	t.Helper()
	org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	hdr.Set("Origin", apptest.Origin)
	pt := e.Project.PublicToken
	apptest.Want(t, e.Do(http.MethodPost, "/sdk/v1/b2b/otps/email/login_or_signup",
		map[string]any{"email_address": "ada@acme.test", "organization_id": org}, hdr, pt, pt), 200, "")
	_, codes := e.LastMail("ada@acme.test")
	r := e.Do(http.MethodPost, "/sdk/v1/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@acme.test",
		"organization_id": org, "code": codes[0], "session_duration_minutes": 60}, hdr, pt, pt)
	apptest.Want(t, r, 200, "")
	return r
}

// The client that logs in is recorded with the session (its address as
// the trusted proxy reports it, and its User-Agent) and reported in every
// JWT of the session, including those re-signed by later checks.
func TestSessionRecordsItsClient(t *testing.T) {
	apptest.EachWith(t, viaProxy, func(t *testing.T, e *apptest.Env) {
		const ua = "Mozilla/5.0 (X11; Linux x86_64) Latchkey-Test/1.0"
		r := loginFrom(t, e, http.Header{"User-Agent": {ua}, "X-Forwarded-For": {"198.51.100.7, 203.0.113.9"}})
		want := map[string]any{"ip_address": "203.0.113.9", "user_agent": ua}
		if got := sessionAttributes(t, r.Data()["session_jwt"].(string)); !equalAttrs(got, want) {
			t.Fatalf("login JWT attributes %v, want %v", got, want)
		}
		// A later check from elsewhere, extending the session (so the JWT
		// is signed again from the stored row), still names the client
		// that created it.
		e.Clock.Advance(2 * time.Minute)
		token := r.Data()["session_token"].(string)
		r = e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token, "session_duration_minutes": 30})
		apptest.Want(t, r, 200, "")
		if got := sessionAttributes(t, r.Body["session_jwt"].(string)); !equalAttrs(got, want) {
			t.Fatalf("re-signed JWT attributes %v, want %v", got, want)
		}
	})
}

func equalAttrs(got, want map[string]any) bool {
	return len(got) == len(want) && got["ip_address"] == want["ip_address"] && got["user_agent"] == want["user_agent"]
}

// Rate limits count an IPv6 client by its /64 (httpapi.ClientIP), but the
// session and the audit log keep the address the client really used.
func TestSessionAndAuditKeepTheFullIPv6Address(t *testing.T) {
	apptest.EachWith(t, viaProxy, func(t *testing.T, e *apptest.Env) {
		const client = "2001:db8:1:2::7"
		r := loginFrom(t, e, http.Header{"X-Forwarded-For": {client}})
		if got := sessionAttributes(t, r.Data()["session_jwt"].(string))["ip_address"]; got != client {
			t.Errorf("session ip_address %v, want %s", got, client)
		}
		logins, err := e.App.Audit.List(context.Background(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.Login})
		if err != nil {
			t.Fatal(err)
		}
		if len(logins) != 1 || logins[0].IP != client {
			t.Errorf("login events %+v, want one from %s", logins, client)
		}
	})
}
