package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// @stytch/vanilla-js 6.3.0 declares X509Certificate.updated_at (and
// created_at, expires_at) as required strings, and
// B2BSSOOIDCUpdateConnectionResponse.warning as a required string. The
// Node client declares both optional; the backend face answers them too,
// so both faces carry the same certificate and update answers.
func TestSSOAnswersCarryDeclaredFields(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateAdmin(org, "ada@acme.test")
		tok := e.SessionFor(org, "ada@acme.test")
		certsHaveDates := func(face string, conn map[string]any) {
			t.Helper()
			certs, _ := conn["signing_certificates"].([]any)
			if len(certs) == 0 {
				t.Fatalf("%s: no signing certificate: %v", face, conn)
			}
			for _, c := range certs {
				c := c.(map[string]any)
				for _, f := range []string{"created_at", "expires_at", "updated_at"} {
					if _, ok := c[f].(string); !ok {
						t.Errorf("%s: signing certificate lacks %s: %v", face, f, c)
					}
				}
				if c["updated_at"] != c["created_at"] {
					t.Errorf("%s: a certificate never changes, yet updated_at %v != created_at %v", face, c["updated_at"], c["created_at"])
				}
			}
		}

		r := e.SDK(http.MethodPost, "/b2b/sso/saml", map[string]any{"display_name": "S"}, tok)
		apptest.Want(t, r, 200, "")
		certsHaveDates("sdk", r.Data()["connection"].(map[string]any))
		r = e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+org, map[string]any{"display_name": "B"})
		apptest.Want(t, r, 200, "")
		certsHaveDates("backend", r.Body["connection"].(map[string]any))
		r = e.Backend(http.MethodGet, "/v1/b2b/sso/"+org, nil)
		apptest.Want(t, r, 200, "")
		for _, c := range r.Body["saml_connections"].([]any) {
			certsHaveDates("backend list", c.(map[string]any))
		}

		r = e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{"display_name": "O"}, tok)
		apptest.Want(t, r, 200, "")
		id := r.Data()["connection"].(map[string]any)["connection_id"].(string)
		r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+id, map[string]any{"connection_id": id, "display_name": "O2"}, tok)
		apptest.Want(t, r, 200, "")
		if w, ok := r.Data()["warning"].(string); !ok || w != "" {
			t.Errorf("SDK OIDC update without a warning: warning = %#v: %s", r.Data()["warning"], r.Raw)
		}
		r = e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+org+"/connections/"+id, map[string]any{"display_name": "O3"})
		apptest.Want(t, r, 200, "")
		if w, ok := r.Body["warning"].(string); !ok || w != "" {
			t.Errorf("backend OIDC update without a warning: warning = %#v: %s", r.Body["warning"], r.Raw)
		}
	})
}
