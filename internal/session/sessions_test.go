package session_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/apptest"
)

func TestSessionJWTVerifiesWithJWKS(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		_, tok, member := e.Login(org, "ada@acme.test")

		r := e.Do(http.MethodGet, "/v1/b2b/sessions/jwks/"+e.Project.Project.ID, nil, nil, "", "")
		var set jose.JSONWebKeySet
		if err := json.Unmarshal(r.Raw, &set); err != nil || len(set.Keys) != 1 || set.Keys[0].Algorithm != "RS256" {
			t.Fatalf("jwks: %s (%v)", r.Raw, err)
		}
		parsed, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.RS256})
		if err != nil {
			t.Fatal(err)
		}
		if parsed.Headers[0].KeyID != set.Keys[0].KeyID || parsed.Headers[0].ExtraHeaders["typ"] != "JWT" {
			t.Fatalf("jwt header = %+v", parsed.Headers[0])
		}
		var reg jwt.Claims
		var custom map[string]any
		if err := parsed.Claims(set.Keys[0].Key, &reg, &custom); err != nil {
			t.Fatalf("signature does not verify with the published key: %v", err)
		}
		now := e.Clock.Now()
		if err := reg.Validate(jwt.Expected{Issuer: "stytch.com/" + e.Project.Project.ID, AnyAudience: jwt.Audience{e.Project.Project.ID},
			Subject: member, Time: now}); err != nil {
			t.Fatalf("claims: %v", err)
		}
		if got := reg.Expiry.Time().Sub(now); got != 5*time.Minute {
			t.Fatalf("jwt lifetime = %v, want 5m", got)
		}
		sess := custom["https://stytch.com/session"].(map[string]any)
		orgClaim := custom["https://stytch.com/organization"].(map[string]any)
		if sess["id"] == "" || sess["roles"].([]any)[0] != "stytch_member" || len(sess["authentication_factors"].([]any)) != 1 {
			t.Fatalf("session claim = %v", sess)
		}
		if orgClaim["organization_id"] != org || orgClaim["slug"] != "acme" {
			t.Fatalf("organization claim = %v", orgClaim)
		}
		// A JWT for another project does not verify against this JWKS.
		other := e.NewProject("Other")
		r = e.Do(http.MethodGet, "/v1/b2b/sessions/jwks/"+other.Project.ID, nil, nil, "", "")
		var otherSet jose.JSONWebKeySet
		_ = json.Unmarshal(r.Raw, &otherSet)
		if err := parsed.Claims(otherSet.Keys[0].Key, &reg); err == nil {
			t.Fatal("JWT verified with another project's key")
		}
		apptest.Want(t, e.Do(http.MethodGet, "/v1/b2b/sessions/jwks/project-test-nope", nil, nil, "", ""), 404, "project_not_found")
	})
}

func TestSessionAuthenticateRefreshRevoke(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, firstJWT, member := e.Login(org, "ada@acme.test")

		r := e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token)
		d := r.Data()
		if r.Status != 200 || d["member_id"] != member || d["session_token"] != token {
			t.Fatalf("sdk authenticate: %s", r.Raw)
		}
		if d["session_jwt"] != firstJWT {
			t.Fatal("a still-fresh JWT was re-signed on the hot path")
		}
		e.Clock.Advance(90 * time.Second)
		r = e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token)
		if r.Data()["session_jwt"] == firstJWT {
			t.Fatal("JWT not refreshed after it stopped being fresh")
		}
		if r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_jwt": r.Data()["session_jwt"]}); r.Status != 200 || r.Body["member_session"].(map[string]any)["member_id"] != member {
			t.Fatalf("backend authenticate by jwt: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_jwt": "a.b.c"}), 401, "unable_to_parse_session_jwt")

		// Extending moves expires_at to now + duration.
		r = e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token, "session_duration_minutes": 120})
		exp, _ := time.Parse(time.RFC3339, r.Body["member_session"].(map[string]any)["expires_at"].(string))
		if !exp.Equal(e.Clock.Now().Add(120 * time.Minute)) {
			t.Fatalf("expires_at = %v, want now+120m", exp)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token, "session_duration_minutes": 1}),
			400, "invalid_session_duration")

		// No session: the SDK's "logged out" answer.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, ""), 401, "unauthorized_credentials")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, "bogus"), 404, "session_not_found")

		// Another project's session is not found here.
		other := e.NewProject("Other")
		r = e.Do(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token}, nil, other.Project.ID, other.Secret)
		apptest.Want(t, r, 404, "session_not_found")

		if r := e.Do(http.MethodPost, "/sdk/v1/b2b/sessions/revoke", nil, http.Header{"Origin": {apptest.Origin}}, e.Project.PublicToken, token); r.Status != 200 {
			t.Fatalf("revoke with empty body: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token), 404, "session_not_found")

		// Expiry.
		token2, _, _ := e.Login(org, "bob@acme.test")
		e.Clock.Advance(61 * time.Minute)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token2), 404, "session_not_found")

		// Backend revoke of all a member's sessions.
		token3, _, m3 := e.Login(org, "cy@acme.test")
		if r := e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"member_id": m3}); r.Status != 200 {
			t.Fatalf("revoke member: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token3), 404, "session_not_found")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{}), 400, "invalid_request")
	})
}
