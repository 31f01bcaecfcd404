package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// sessions/exchange moves a member between organizations they already
// belong to; it never provisions one (the API family: it can accept an
// invite, but creating a member by email domain JIT is the discovery
// exchange's job, which only offers organizations where the domain is
// vouched for). An organization whose email JIT admits the session's
// domain, or that admits everyone, still answers a non-member
// member_not_found on both faces, whether or not the session's factors
// carry over, and gains no member; an invited member is taken in.
func TestSessionExchangeNeverProvisions(t *testing.T) {
	for _, face := range []string{"backend", "sdk"} {
		t.Run(face, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				sdk := face == "sdk"
				home := e.CreateOrg("home", "NOT_ALLOWED", nil)
				e.CreateMember(home, "ada@corp.test")
				carries, _ := e.LoginByEmailOTP(home, "ada@corp.test")
				e.SetPassword(home, "ada@corp.test", "correct horse battery staple 42")
				pw := e.PasswordLogin(home, "ada@corp.test", "correct horse battery staple 42")
				apptest.Want(t, pw, 200, "")
				stays, _ := pw.Data()["session_token"].(string)

				domainCo := e.CreateOrg("domain-co", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"corp.test"}})
				e.CreateVerifiedMember(domainCo, "zoe@corp.test") // vouches for corp.test
				open := e.CreateOrg("open-co", "ALL_ALLOWED", nil)

				exchange := func(tok, org string) apptest.Resp {
					body := map[string]any{"organization_id": org}
					if !sdk {
						body["session_token"] = tok
					}
					return post(e, sdk, "b2b/sessions/exchange", body, tok)
				}
				for _, org := range []string{domainCo, open} {
					apptest.Want(t, exchange(carries, org), 404, "member_not_found")
					apptest.Want(t, exchange(stays, org), 404, "member_not_found")
					if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1 AND email_address = $2`,
						org, "ada@corp.test"); n != 0 {
						t.Fatalf("sessions/exchange created %d members of %s", n, org)
					}
				}
				// Both sessions still stand.
				for _, tok := range []string{carries, stays} {
					apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": tok}), 200, "")
				}

				// An invited member is taken in on a factor that carries:
				// the exchange accepts the invite.
				apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite",
					map[string]any{"organization_id": domainCo, "email_address": "ada@corp.test"}), 200, "")
				if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1 AND email_address = $2 AND status = 'invited'`,
					domainCo, "ada@corp.test"); n != 1 {
					t.Fatalf("%d invited members", n)
				}
				apptest.Want(t, exchange(carries, domainCo), 200, "")
			})
		})
	}
}
