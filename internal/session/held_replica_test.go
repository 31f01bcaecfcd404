package session_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A session revoked on one replica may still pass a check on another for
// up to a second (the hot cache). A login that joins it, or a
// sessions/exchange of it, must not turn that second into a new, durable
// session carrying the revoked one's factors (its MFA among them): the
// transaction that would create the successor asks the database whether
// the held session still stands (session.EndHeld, ConfirmHeld).
func TestRevokedOnAnotherReplicaStartsNothing(t *testing.T) {
	t.Parallel()
	apptest.EachPair(t, func(t *testing.T, e1, e2 *apptest.Env) {
		e1.AlignClock()
		org, mid, secret, _ := e1.TOTPMember()
		const email = "ada@secure.test"
		plain := e1.CreateOrg("plain", "NOT_ALLOWED", nil)
		e1.CreateMember(plain, email)
		strict := e1.CreateOrg("strict", "NOT_ALLOWED", nil)
		e1.SetMFA(strict, "REQUIRED_FOR_ALL")
		e1.CreateMember(strict, email)

		// mfaSession is a session of the member with an email code and
		// the authenticator app, as the member logs in every day.
		mfaSession := func() string {
			t.Helper()
			// Past the email sends' window (five per address in ten
			// minutes), and a whole number of TOTP steps, so the code is
			// new and the clock stays aligned.
			e1.Clock.Advance(10*time.Minute + 30*time.Second)
			ist, _ := e1.MFALogin(org, email)
			r := e1.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org,
				"member_id": mid, "intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e1.Clock.Now())})
			apptest.Want(t, r, 200, "")
			return r.Body["session_token"].(string)
		}
		live := func() int {
			return e1.Count(`SELECT count(*) FROM member_sessions WHERE revoked_at IS NULL AND member_id IN
				(SELECT member_id FROM members WHERE email_address = $1)`, email)
		}
		ists := func() int { return e1.Count(`SELECT count(*) FROM intermediate_sessions`) }

		t.Run("email code joining it", func(t *testing.T) {
			var code string
			apptest.RevokedButCached(t, e1, e2, mfaSession, func() {
				apptest.Want(t, e1.SendCode(org, email), 200, "")
				_, codes := e1.LastMail(email)
				code = codes[len(codes)-1]
			}, func(held string) {
				before := live()
				r := e1.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": org,
					"email_address": email, "code": code, "session_token": held})
				apptest.Want(t, r, 404, "session_not_found")
				if n := live(); n != before {
					t.Errorf("live sessions %d -> %d: the refused login started one", before, n)
				}
			})
		})

		t.Run("MFA step-up", func(t *testing.T) {
			apptest.RevokedButCached(t, e1, e2, mfaSession, func() {}, func(held string) {
				before := live()
				e1.Clock.Advance(30 * time.Second) // the login used this step's code
				r := e1.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
					"code": apptest.TOTPAt(t, secret, e1.Clock.Now())}, held)
				apptest.Want(t, r, 404, "session_not_found")
				if n := live(); n != before {
					t.Errorf("live sessions %d -> %d: the refused step-up started one", before, n)
				}
			})
		})

		t.Run("sessions/exchange to a session", func(t *testing.T) {
			apptest.RevokedButCached(t, e1, e2, mfaSession, func() {}, func(held string) {
				before := live()
				r := e1.Backend(http.MethodPost, "/v1/b2b/sessions/exchange", map[string]any{"organization_id": plain,
					"session_token": held})
				apptest.Want(t, r, 404, "session_not_found")
				if n := live(); n != before {
					t.Errorf("live sessions %d -> %d: the refused exchange started one", before, n)
				}
			})
		})

		// An organization that wants MFA answers the exchange with an IST
		// carrying the session's email factor: that too needs the session.
		t.Run("sessions/exchange to an IST", func(t *testing.T) {
			apptest.RevokedButCached(t, e1, e2, mfaSession, func() {}, func(held string) {
				before := ists()
				r := e1.Backend(http.MethodPost, "/v1/b2b/sessions/exchange", map[string]any{"organization_id": strict,
					"session_token": held})
				apptest.Want(t, r, 404, "session_not_found")
				if n := ists(); n != before {
					t.Errorf("intermediate sessions %d -> %d: the refused exchange issued one", before, n)
				}
			})
		})

		// The same requests with a live session still do what they did.
		t.Run("live session", func(t *testing.T) {
			held := mfaSession()
			for range 2 {
				apptest.Want(t, check(e1, held, ""), 200, "")
			}
			apptest.Want(t, e1.SendCode(org, email), 200, "")
			_, codes := e1.LastMail(email)
			r := e1.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": org,
				"email_address": email, "code": codes[len(codes)-1], "session_token": held})
			e1.WantJoined(t, r, held, "totp", "email_otp")
			joined := r.Body["session_token"].(string)
			r = e1.Backend(http.MethodPost, "/v1/b2b/sessions/exchange", map[string]any{"organization_id": plain,
				"session_token": joined})
			apptest.Want(t, r, 200, "")
			if r.Body["session_token"] == "" {
				t.Fatalf("exchange answered %s: want a session", r.Raw)
			}
			apptest.Want(t, check(e1, joined, ""), 404, "session_not_found")
		})
	})
}
