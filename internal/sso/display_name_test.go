package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A connection's display_name is on the login screen ("Continue with
// ..."): control and bidirectional formatting characters in it are
// refused (invalid_request naming the field) on every create and update,
// and a name with nothing visible is blank, so a create uses the default
// name and an update refuses it. Joiners in a visible name stay.
func TestDisplayNameRefusesBidiControls(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		wantField := func(r apptest.Resp) {
			t.Helper()
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "display_name" {
				t.Errorf("refusal names %v", r.Body["error_details"])
			}
		}
		for _, bad := range []string{"Okta\u202e", "\u2066Okta\u2069", "\u200fOkta", "Ok\nta"} {
			wantField(e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+s.orgID, map[string]any{"display_name": bad}))
			wantField(e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{"display_name": bad}))
			wantField(e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{"display_name": bad}))
			wantField(e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+target, map[string]any{"external_organization_id": s.orgID,
				"external_connection_id": s.connID, "display_name": bad}))
		}
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{"display_name": "\u200b\u200b", "identity_provider": "okta"})
		apptest.Want(t, r, 200, "")
		oidc := r.Body["connection"].(map[string]any)
		if oidc["display_name"] != "okta OIDC" {
			t.Errorf("invisible name stored as %q", oidc["display_name"])
		}
		oidcPath := "/v1/b2b/sso/oidc/" + s.orgID + "/connections/" + oidc["connection_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, oidcPath, map[string]any{"display_name": "\u00ad\u200d"}), 400, "invalid_request")
		wantField(e.Backend(http.MethodPut, oidcPath, map[string]any{"display_name": "Acme\u202a"}))
		ext := createExternal(t, e, target, s.orgID, s.connID, nil)
		extPath := "/v1/b2b/sso/external/" + target + "/connections/" + ext["connection_id"].(string)
		wantField(e.Backend(http.MethodPut, extPath, map[string]any{"display_name": "\u061cAcme"}))
		apptest.Want(t, e.Backend(http.MethodPut, extPath, map[string]any{"display_name": "\u200b"}), 400, "invalid_request")

		ok := "Acme 👩\u200d💻"
		r = e.Backend(http.MethodPut, oidcPath, map[string]any{"display_name": ok})
		apptest.Want(t, r, 200, "")
		if got := r.Body["connection"].(map[string]any)["display_name"]; got != ok {
			t.Errorf("display_name %q stored as %q", ok, got)
		}
	})
}
