package emailotp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/emailotp"
)

// On the SDK face a deleted member's address is answered as a stranger's:
// the organization's JIT refusal where it admits no such stranger (closed,
// or restricted to other domains), and otherwise success, with a notice
// that names the project instead of a code (no login can follow), under a
// real send's limits. The member stays deleted and no code is stored. The
// backend face, which holds the secret, keeps inactive_member. A deleted
// member was inactive_member on both faces before, before the JIT policy
// was looked at: a stranger could tell former members apart.
func TestEmailOTPSendAnswersFormerMemberAsStranger(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for _, c := range []struct {
			jit     string
			fields  map[string]any
			status  int
			errType string
		}{
			{"ALL_ALLOWED", nil, 200, ""},
			{"NOT_ALLOWED", nil, 403, "email_jit_provisioning_not_allowed"},
			{"RESTRICTED", map[string]any{"email_allowed_domains": []string{"elsewhere.test"}}, 403, "invalid_email_for_jit_provisioning"},
		} {
			tag := strings.ToLower(c.jit[:3])
			org := e.CreateOrg("org-"+tag, c.jit, c.fields)
			former := "gone-" + tag + "@acme.test"
			id := e.CreateVerifiedMember(org, former) // verified: kept when deleted
			e.DeleteMember(org, id)
			mails := func() int {
				msgs, err := e.App.Outbox.List(t.Context(), former, 0)
				if err != nil {
					t.Fatal(err)
				}
				return len(msgs)
			}
			before, codes := mails(), e.Count(`SELECT COUNT(*) FROM email_otps WHERE member_id = $1`, id)
			for _, email := range []string{"stranger-" + tag + "@acme.test", former} {
				r := e.SendCode(org, email)
				if r.Status != c.status || r.ErrType() != c.errType {
					t.Errorf("%s, %s: got %d %q, want %d %q: %s", c.jit, email, r.Status, r.ErrType(), c.status, c.errType, r.Raw)
				}
			}
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup",
				map[string]any{"email_address": former, "organization_id": org}), 403, "inactive_member")
			if m := e.MemberByID(org, id); m["status"] != "deleted" {
				t.Fatalf("%s: member after the sends: %v", c.jit, m)
			}
			if n := e.Count(`SELECT COUNT(*) FROM email_otps WHERE member_id = $1`, id); n != codes {
				t.Fatalf("%s: %d codes stored for the deleted member", c.jit, n-codes)
			}
			if c.status != 200 {
				if mails() != before {
					t.Fatalf("%s: a refused send mailed the former member", c.jit)
				}
				continue
			}
			if mails() != before+1 {
				t.Fatalf("%s: %d new mails to the former member, want the notice", c.jit, mails()-before)
			}
			msgs, _ := e.App.Outbox.List(t.Context(), former, 1)
			if m := msgs[0]; m.Subject != "Sign-in request for Customer App" || len(m.Links) != 0 || len(m.Codes) != 0 {
				t.Fatalf("%s: notice %q with links %v codes %v:\n%s", c.jit, m.Subject, m.Links, m.Codes, m.Text)
			}
			// The limits of a real send: the per-recipient one runs out
			// where a stranger's would.
			for i := 1; i < emailotp.SendPerEmail.Limit; i++ {
				apptest.Want(t, e.SendCode(org, former), 200, "")
			}
			apptest.Want(t, e.SendCode(org, former), 429, "too_many_requests")
			if n := mails(); n != before+emailotp.SendPerEmail.Limit {
				t.Fatalf("%d mails to the former member, want %d", n, before+emailotp.SendPerEmail.Limit)
			}
		}
	})
}
