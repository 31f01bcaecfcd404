package session_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

// A session's lineage (MemberSession.Lineage) is the id of the login it
// descends from: a step-up replaces the session, by TOTP or by an email
// code joining the held session, and keeps the lineage, as does an
// address change made with the session held; a fresh login and an
// exchange into another organization start their own. A row without one
// (written before the column) is its own lineage. It is never on the
// wire.
func TestSessionLineage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		// ada@acme.test is a member of beta too, for the exchange.
		e.CreateMember(f.Beta, "ada@acme.test")
		check := func(token string) *session.MemberSession {
			t.Helper()
			out, err := e.App.Sessions.Authenticate(t.Context(), e.Project.Project, session.Credential{Token: token}, nil)
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			return out.MemberSession
		}
		first := check(f.Admin)
		if first.Lineage() != first.MemberSessionID {
			t.Fatalf("a fresh login's lineage %q, want its own id %s", first.Lineage(), first.MemberSessionID)
		}

		_, stepped := e.SessionTOTP(f.Acme, f.AdminID, f.Admin, nil)
		ms := check(stepped)
		if ms.MemberSessionID == first.MemberSessionID || ms.Lineage() != first.MemberSessionID {
			t.Fatalf("after TOTP: session %s lineage %s, want a new session of lineage %s", ms.MemberSessionID, ms.Lineage(), first.MemberSessionID)
		}
		if r := e.SendCode(f.Acme, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send code: %s", r.Raw)
		}
		_, codes := e.LastMail("ada@acme.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": f.Acme,
			"email_address": "ada@acme.test", "code": codes[0], "session_token": stepped})
		e.WantJoined(t, r, stepped, "totp", "email_otp")
		joined := r.Body["session_token"].(string)
		if got := check(joined).Lineage(); got != first.MemberSessionID {
			t.Fatalf("after an email code joined the session: lineage %s, want %s", got, first.MemberSessionID)
		}
		for _, raw := range []string{string(r.Raw), string(e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, joined).Raw)} {
			if strings.Contains(raw, "lineage") {
				t.Fatalf("the lineage is on the wire: %s", raw)
			}
		}

		// Another organization is another session.
		r = e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": f.Beta, "session_duration_minutes": 60}, joined)
		apptest.Want(t, r, 200, "")
		other := check(r.Data()["session_token"].(string))
		if other.Lineage() != other.MemberSessionID {
			t.Fatalf("after an exchange into another organization: lineage %s, want its own id %s", other.Lineage(), other.MemberSessionID)
		}

		// An address change made with the session held continues it.
		bob := check(f.Plain)
		apptest.Want(t, e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "robert@acme.test",
			"delivery_method": "EMAIL_OTP"}), 200, "")
		_, codes = e.LastMail("robert@acme.test")
		r = e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": f.Acme,
			"email_address": "robert@acme.test", "code": codes[0], "session_token": f.Plain})
		apptest.Want(t, r, 200, "")
		robert := r.Body["session_token"].(string)
		if got := check(robert).Lineage(); got != bob.MemberSessionID {
			t.Fatalf("after an address change with the session held: lineage %s, want %s", got, bob.MemberSessionID)
		}

		// A row from before the column is its own lineage.
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE member_sessions SET lineage_id = NULL
			WHERE member_session_id = $1`, check(robert).MemberSessionID); err != nil {
			t.Fatal(err)
		}
		if ms := check(robert); ms.Lineage() != ms.MemberSessionID {
			t.Fatalf("a row without a lineage: %s, want its own id %s", ms.Lineage(), ms.MemberSessionID)
		}
	})
}
