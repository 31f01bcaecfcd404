package session_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// A check that extends a session (session_duration_minutes) or sets its
// custom claims writes them before answering; the session itself was checked from memory,
// which on a replica may be up to a second behind a change made on
// another. The extension must not turn that second into a 200 with an
// expiry never stored and a fresh JWT: a session revoked, or already
// expired, in the database is session_not_found, on both faces, its row is
// left as it was, and the replica's stale copy is gone at once.
func TestExtendingASessionChangedOnAnotherReplica(t *testing.T) {
	t.Parallel()
	apptest.EachPair(t, func(t *testing.T, e1, e2 *apptest.Env) {
		org := e1.CreateOrg("acme", "ALL_ALLOWED", nil)
		// A new member for each session keeps the email sends under their
		// per-address limit without moving the clock.
		n := 0
		newSession := func() string {
			t.Helper()
			n++
			token, _, _ := e1.Login(org, fmt.Sprintf("ada%d@acme.test", n))
			return token
		}
		check := func(e *apptest.Env, token string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
		}
		// live counts the rows of token the database holds live by e1's
		// clock (0 or 1).
		live := func(token string) int {
			return e1.Count(`SELECT count(*) FROM member_sessions WHERE token_hash = $1 AND revoked_at IS NULL
				AND expires_at > $2`, ids.Hash(token), store.Millis(e1.Clock.Now()))
		}
		faces := []struct {
			name   string
			extend func(held string) apptest.Resp
		}{
			{"backend", func(held string) apptest.Resp {
				return e1.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": held,
					"session_duration_minutes": 600})
			}},
			{"sdk", func(held string) apptest.Resp {
				return e1.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{"session_duration_minutes": 30}, held)
			}},
			// Custom claims are written (with the extension, if any) under
			// the row's lock, which must find the row live too.
			{"claims", func(held string) apptest.Resp {
				return e1.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": held,
					"session_duration_minutes": 600, "session_custom_claims": map[string]any{"plan": "gold"}})
			}},
			{"claims-only", func(held string) apptest.Resp {
				return e1.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": held,
					"session_custom_claims": map[string]any{"plan": "gold"}})
			}},
		}
		for _, face := range faces {
			name, extend := face.name, face.extend
			t.Run("revoked/"+name, func(t *testing.T) {
				apptest.RevokedButCached(t, e1, e2, newSession, func() {}, func(held string) {
					apptest.Want(t, extend(held), 404, "session_not_found")
					if n := live(held); n != 0 {
						t.Errorf("the refused extension left %d live sessions", n)
					}
					// And e1 no longer answers from its stale copy.
					apptest.Want(t, check(e1, held), 404, "session_not_found")
				})
			})
			t.Run("expired/"+name, func(t *testing.T) {
				expiredButCached(t, e1, e2, newSession, check, func(held string) {
					apptest.Want(t, extend(held), 404, "session_not_found")
					if n := live(held); n != 0 {
						t.Errorf("the refused extension revived the expired session (%d live)", n)
					}
					apptest.Want(t, check(e1, held), 404, "session_not_found")
				})
			})
		}
	})
}

// expiredButCached is apptest.RevokedButCached for an expiry: e2 shortens
// the session to five minutes, six pass on e1, and act runs while e1
// still answers from its copy holding the old, later expiry.
func expiredButCached(t *testing.T, e1, e2 *apptest.Env, newSession func() string,
	check func(e *apptest.Env, token string) apptest.Resp, act func(held string)) {
	t.Helper()
	for range 5 {
		e2.Clock.Advance(e1.Clock.Now().Sub(e2.Clock.Now())) // one time on both replicas
		held := newSession()
		for range 2 {
			apptest.Want(t, check(e1, held), 200, "")
		}
		apptest.Want(t, e2.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": held,
			"session_duration_minutes": 5}), 200, "") // the shortest allowed
		e1.Clock.Advance(6 * time.Minute)
		if check(e1, held).Status == 200 {
			act(held)
			return
		}
	}
	t.Fatal("e1 saw every shortened expiry at once: the stale window could not be set up")
}
