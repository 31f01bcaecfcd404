package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A response is accepted only from the connection's IdP entity: one signed
// by a trusted certificate but issued by another entity (an IdP tenant
// whose certificate is shared by several apps, or an entity the customer
// replaced) is refused, not logged in.
func TestSAMLResponseFromAnotherIssuerRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
			map[string]any{"idp_entity_id": "https://another-idp.example/entity"}), 200, "")
		acs, form := s.idp.follow(s.start(nil))
		wantPage(t, s.post(acs, form), 400, "invalid_saml_response")
	})
}
