package sso_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	lkconfig "github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/sso"
)

// postFrom sends the IdP's form to our ACS as the browser at client
// address ip does (behind the trusted proxy).
func (s *samlEnv) postFrom(ip, acs string, form url.Values) apptest.Resp {
	s.T.Helper()
	return s.Do(http.MethodPost, acs, form.Encode(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"},
		"X-Forwarded-For": {ip}}, "", "")
}

// Anyone can post to an active connection's ACS, and each post costs XML
// parsing and a signature verification, so failed posts count per
// project and client address (sso.ACSFailuresPerIP). Past the limit the
// address is refused before its response is looked at: a forged
// response is answered too_many_requests, not invalid_signature, and a
// genuine response posted from there is refused too, and left unused (its
// assertion not remembered, its relay state not spent): posted from
// another address it logs in. A verified login gives its own hit back,
// so only failures count; another project's connection at the same
// address keeps its own allowance.
func TestSAMLACSFailuresLimitedPerAddress(t *testing.T) {
	apptest.EachWith(t, func(c *lkconfig.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		elsewhere := *e // the same server, another project
		elsewhere.Project = e.NewProject("Other")
		other := newSAMLEnv(t, &elsewhere, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		other.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		const forger, colleague = "203.0.113.7", "198.51.100.9"

		// A forged response: the IdP's, with its subject changed.
		acs, forged := s.idp.follow(s.start(nil))
		raw, _ := base64.StdEncoding.DecodeString(forged.Get("SAMLResponse"))
		tampered := strings.Replace(string(raw), "okta-user-1", "okta-user-9", 1)
		if tampered == string(raw) {
			t.Fatal("nothing tampered")
		}
		forged.Set("SAMLResponse", base64.StdEncoding.EncodeToString([]byte(tampered)))

		for range sso.ACSFailuresPerIP.Limit - 1 {
			wantPage(t, s.postFrom(forger, acs, forged), 400, "invalid_signature_saml_response")
		}
		// A verified login from the address gives its hit back.
		_, form := s.idp.follow(s.start(nil))
		tokenFrom(t, s.postFrom(forger, acs, form))
		wantPage(t, s.postFrom(forger, acs, forged), 400, "invalid_signature_saml_response")

		// Over the limit: refused before the response is verified.
		wantPage(t, s.postFrom(forger, acs, forged), 429, "too_many_requests")
		_, genuine := s.idp.follow(s.start(nil))
		wantPage(t, s.postFrom(forger, acs, genuine), 429, "too_many_requests")

		// The same genuine response from another address: nothing of it was
		// used by the refusal, and the login completes.
		token := tokenFrom(t, s.postFrom(colleague, acs, genuine))
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["member"].(map[string]any)["email_address"] != "ada@acme.test" {
			t.Fatalf("member: %s", r.Raw)
		}

		// Another project's connection, from the refused address.
		otherACS, otherForm := other.idp.follow(other.start(nil))
		tokenFrom(t, other.postFrom(forger, otherACS, otherForm))
	})
}
