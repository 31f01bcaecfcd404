package emailotp_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A new code retires the key's earlier ones for good: only the newest is
// compared, so a superseded code left live would come back once its
// successor is spent (or locked out), and a code the member ignored, or
// an old email someone else can read, would log in again.
func TestSupersededCodeStaysRetiredAfterItsSuccessor(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.SendCode(org, "twice@acme.test")
		_, first := e.LastMail("twice@acme.test")
		e.Clock.Advance(time.Second)
		e.SendCode(org, "twice@acme.test")
		_, second := e.LastMail("twice@acme.test")
		if first[0] == second[0] {
			t.Skip("the two codes happen to be equal")
		}
		if r := e.CheckCode(org, "twice@acme.test", second[0]); r.Status != 200 {
			t.Fatalf("newest code: %s", r.Raw)
		}
		apptest.Want(t, e.CheckCode(org, "twice@acme.test", first[0]), 404, "otp_code_not_found")
	})
}

// A code belongs to its project. Discovery codes are keyed by the email
// address alone, which every project may hold: another project's
// discovery check must neither accept the code nor spend its attempts
// (a stranger's project could otherwise lock out, or use, the code mailed
// for this one).
func TestDiscoveryCodeIsBoundToItsProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		email := "ada@acme.test"
		if r := e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send", map[string]any{"email_address": email}, ""); r.Status != 200 {
			t.Fatalf("discovery send: %s", r.Raw)
		}
		_, codes := e.LastMail(email)
		other := e.NewProject("Other")
		r := e.Do(http.MethodPost, "/sdk/v1/b2b/otps/email/discovery/authenticate", map[string]any{"email_address": email, "code": codes[0]},
			http.Header{"Origin": {apptest.Origin}}, other.PublicToken, other.PublicToken)
		if r.Status == 200 {
			t.Fatalf("another project accepted this project's discovery code: %s", r.Raw)
		}
		apptest.Want(t, r, 404, "otp_code_not_found")
		r = e.SDK(http.MethodPost, "/b2b/otps/email/discovery/authenticate", map[string]any{"email_address": email, "code": codes[0]}, "")
		if r.Status != 200 {
			t.Fatalf("the code in its own project: %s", r.Raw)
		}
	})
}
