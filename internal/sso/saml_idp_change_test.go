package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A connection moved to another identity provider (another
// idp_entity_id) keeps no identity the previous one asserted: NameIDs are
// unique only within the identity provider that issued them (SAML core
// 2.2.3, 8.3.7), so the new one's "jsmith" may be someone else than the old
// one's. Before the fix the new identity provider's jsmith, asserted with
// his own address, logged in as the member the old one's jsmith was.
func TestSAMLNewIdentityProviderDoesNotInheritRegistrations(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "jsmith", "", "")
		token := tokenFrom(t, s.post(s.idp.follow(s.start(nil))))
		r := s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60})
		apptest.Want(t, r, 200, "")
		ada := r.Body["member"].(map[string]any)["member_id"]

		// The same IdP re-saved (its metadata again, a new certificate)
		// keeps the registrations: only another entity id drops them.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"idp_entity_id": s.idp.idp.MetadataURL.String(), "display_name": "Acme Okta (renamed)"}), 200, "")
		s.idp.login("ada.renamed@acme.test", "jsmith", "", "")
		token = tokenFrom(t, s.post(s.idp.follow(s.start(nil))))
		r = s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60})
		apptest.Want(t, r, 200, "")
		if r.Body["member"].(map[string]any)["member_id"] != ada {
			t.Fatalf("same IdP, same NameID: %s", r.Raw)
		}

		other := newSAMLIdP(t)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"idp_entity_id": other.idp.MetadataURL.String(), "idp_sso_url": other.idp.SSOURL.String(),
			"x509_certificate": other.certPEM()}), 200, "")
		s.idp = other
		other.login("bob@acme.test", "jsmith", "", "")
		token = tokenFrom(t, s.post(s.idp.follow(s.start(nil))))
		r = s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60})
		apptest.Want(t, r, 200, "")
		if m := r.Body["member"].(map[string]any); m["member_id"] == ada || m["email_address"] != "bob@acme.test" {
			t.Fatalf("the new IdP's jsmith (bob@acme.test) logged in as %v (%v)", m["email_address"], m["member_id"])
		}
	})
}
