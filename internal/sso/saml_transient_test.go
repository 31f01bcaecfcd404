package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// transientFormat is SAML core 8.3.8's transient NameID format.
const transientFormat = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"

// loginTransient logs email in through the connection with a transient
// NameID of value nameID and returns the authenticated member.
func (s *samlEnv) loginTransient(email, nameID string) map[string]any {
	s.T.Helper()
	s.idp.login(email, nameID, "", "")
	s.idp.mu.Lock()
	s.idp.user.NameIDFormat = transientFormat
	s.idp.mu.Unlock()
	token := tokenFrom(s.T, s.post(s.idp.follow(s.start(nil))))
	r := s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60})
	apptest.Want(s.T, r, 200, "")
	return r.Body["member"].(map[string]any)
}

// A transient NameID is a one-time value (SAML core 8.3.8) that an
// identity provider may hand to someone else later (a counter restarted,
// a short random space): it names no one lastingly, so it must not find
// the member an earlier login registered under it. Before the fix the
// second person, asserted with their own address, logged in as the first.
func TestSAMLTransientNameIDNamesNoOneLastingly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		ada := s.loginTransient("ada@acme.test", "_transient-1")
		if ada["email_address"] != "ada@acme.test" {
			t.Fatalf("first login: %v", ada)
		}
		bob := s.loginTransient("bob@acme.test", "_transient-1")
		if bob["email_address"] != "bob@acme.test" || bob["member_id"] == ada["member_id"] {
			t.Fatalf("the same transient NameID for bob@acme.test logged in as %v (%v)", bob["email_address"], bob["member_id"])
		}
		// Ada no longer lists the value among her registrations.
		got := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+s.orgID+"/member?member_id="+ada["member_id"].(string), nil)
		apptest.Want(t, got, 200, "")
		if regs := got.Body["member"].(map[string]any)["sso_registrations"].([]any); len(regs) != 0 {
			t.Fatalf("ada's registrations after bob took _transient-1: %v", regs)
		}
		// Ada's next login, under yet another transient value, is hers.
		again := s.loginTransient("ada@acme.test", "_transient-2")
		if again["member_id"] != ada["member_id"] {
			t.Fatalf("ada's next login: %v", again)
		}
		// A persistent NameID still finds its member whatever address the
		// IdP now asserts (the registration, not the address, names them).
		s.idp.login("ada@acme.test", "persistent-ada", "", "")
		tokenFrom(t, s.post(s.idp.follow(s.start(nil))))
		s.idp.login("ada.renamed@acme.test", "persistent-ada", "", "")
		token := tokenFrom(t, s.post(s.idp.follow(s.start(nil))))
		r := s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60})
		apptest.Want(t, r, 200, "")
		if r.Body["member"].(map[string]any)["member_id"] != ada["member_id"] {
			t.Fatalf("persistent NameID: %s", r.Raw)
		}
	})
}
