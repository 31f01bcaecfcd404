package session_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// A session JWT's exp is not the session's end. As the API family
// documents for sessions/authenticate, a JWT past its exp whose signature
// is valid still names its session, and while that session is live the
// check answers with a new JWT; the session's own expiry and revocation
// decide. Each case is run with a JWT the process verified (and
// remembered) before it expired, and with one first seen after.

// jwtExp is the exp claim of a session JWT.
func jwtExp(t *testing.T, jwt string) time.Time {
	t.Helper()
	var c struct {
		Exp int64 `json:"exp"`
	}
	if err := jwtPayload(jwt, &c); err != nil || c.Exp == 0 {
		t.Fatalf("no exp in %q: %v", jwt, err)
	}
	return time.Unix(c.Exp, 0)
}

// twoJWTs logs in two members and has the first one's JWT checked (so it
// is remembered as verified); the second is never checked.
func twoJWTs(t *testing.T, e *apptest.Env, org string) map[string]string {
	_, seen, _ := e.Login(org, "ada@acme.test")
	_, unseen, _ := e.Login(org, "bob@acme.test")
	apptest.Want(t, check(e, "", seen), 200, "")
	return map[string]string{"remembered": seen, "first seen expired": unseen}
}

func TestExpiredJWTOfLiveSessionGetsNewJWT(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		jwts := twoJWTs(t, e, org)
		e.Clock.Advance(6 * time.Minute) // past exp (5 minutes), within the session's hour
		for name, old := range jwts {
			if !e.Clock.Now().After(jwtExp(t, old)) {
				t.Fatalf("%s: the JWT has not expired", name)
			}
			for range 2 {
				r := check(e, "", old)
				apptest.Want(t, r, 200, "")
				fresh, _ := r.Body["session_jwt"].(string)
				if fresh == old || !jwtExp(t, fresh).After(e.Clock.Now()) {
					t.Fatalf("%s: the answer's JWT is not a new, unexpired one", name)
				}
			}
			// The signature is still what counts.
			tampered := old[:len(old)-4] + "AAAA"
			apptest.Want(t, check(e, "", tampered), 401, "unable_to_parse_session_jwt")
		}
	})
}

func TestExpiredJWTOfEndedSessionIsNotFound(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		revoked := twoJWTs(t, e, org)
		for _, jwt := range revoked {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_jwt": jwt}), 200, "")
		}
		e.Clock.Advance(6 * time.Minute)
		for name, jwt := range revoked {
			if r := check(e, "", jwt); r.Status != 404 || r.ErrType() != "session_not_found" {
				t.Fatalf("%s, revoked session: %d %s", name, r.Status, r.Raw)
			}
		}

		// Sessions of the project's default hour, checked until they end.
		ended := map[string]string{}
		for _, email := range []string{"cy@acme.test", "di@acme.test"} {
			_, jwt, _ := e.Login(org, email)
			ended[email] = jwt
		}
		apptest.Want(t, check(e, "", ended["cy@acme.test"]), 200, "")
		e.Clock.Advance(59 * time.Minute)
		apptest.Want(t, check(e, "", ended["cy@acme.test"]), 200, "")
		e.Clock.Advance(2 * time.Minute)
		for name, jwt := range ended {
			if r := check(e, "", jwt); r.Status != 404 || r.ErrType() != "session_not_found" {
				t.Fatalf("%s, expired session: %d %s", name, r.Status, r.Raw)
			}
		}
	})
}

func TestRevokeByExpiredJWT(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		tokenA, seen, _ := e.Login(org, "ada@acme.test")
		tokenB, unseen, _ := e.Login(org, "bob@acme.test")
		apptest.Want(t, check(e, "", seen), 200, "")
		e.Clock.Advance(6 * time.Minute)
		for _, jwt := range []string{seen, unseen} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_jwt": jwt}), 200, "")
		}
		for _, token := range []string{tokenA, tokenB} {
			apptest.Want(t, check(e, token, ""), 404, "session_not_found")
		}
	})
}

// The member session header of a backend call takes an expired JWT of a
// live session too (it goes through the same check), and refuses one whose
// session was revoked.
func TestExpiredJWTInMemberSessionHeader(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		_, jwt, member := e.Login(org, "ada@acme.test")
		e.Clock.Advance(6 * time.Minute)
		path := "/v1/b2b/organizations/" + org + "/members/" + member
		apptest.Want(t, e.BackendAs(http.MethodPut, path, map[string]any{"name": "Ada"}, organization.MemberSessionJWTHeader, jwt), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_jwt": jwt}), 200, "")
		apptest.Want(t, e.BackendAs(http.MethodPut, path, map[string]any{"name": "Eve"}, organization.MemberSessionJWTHeader, jwt), 404, "session_not_found")
	})
}
