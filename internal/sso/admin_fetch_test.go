package sso_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// countingIdP is a loopback server standing for any URL a caller might
// name (an internal service, an IdP): it counts every request it gets.
// /metadata serves the SAML IdP's real metadata, so an authorized update
// by URL still succeeds; anything else, issuer discovery included, is 404.
func countingIdP(t *testing.T, idp *samlIdP) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/metadata" {
			idp.idp.ServeMetadata(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// The SDK-face updates that fetch a URL the caller names (OIDC issuer
// discovery, SAML metadata by URL) authorize the update first: a caller
// without a session, a member without stytch.sso:update, and an
// administrator naming another organization's connection are refused
// without the server sending any request; an administrator of the
// connection's organization still gets the fetch.
func TestSSOUpdateFetchesOnlyForAuthorizedCallers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		srv, hits := countingIdP(t, s.idp)
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{"display_name": "Acme OIDC"})
		apptest.Want(t, r, 200, "")
		oidcID := r.Body["connection"].(map[string]any)["connection_id"].(string)

		memberID := e.CreateMember(s.orgID, "pat@acme.test")
		member := e.SessionFor(s.orgID, "pat@acme.test")
		otherOrg := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		outsiderID := e.CreateMember(otherOrg, "eve@globex.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+otherOrg+"/members/"+outsiderID,
			map[string]any{"is_admin": true}), 200, "")
		outsider := e.SessionFor(otherOrg, "eve@globex.test")

		oidc := func(session string) apptest.Resp {
			return e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"issuer": srv.URL + "/internal"}, session)
		}
		saml := func(session string) apptest.Resp {
			return e.SDK(http.MethodPut, "/b2b/sso/saml/"+s.connID+"/url", map[string]any{"metadata_url": srv.URL + "/metadata"}, session)
		}
		for _, c := range []struct {
			name, session string
			status        int
			errType       string
		}{
			{"no session", "", 401, "user_unauthenticated"},
			{"member without stytch.sso:update", member, 403, "unauthorized_action"},
			{"administrator of another organization", outsider, 404, "sso_connection_not_found"},
		} {
			t.Run(c.name, func(t *testing.T) {
				apptest.Want(t, oidc(c.session), c.status, c.errType)
				apptest.Want(t, saml(c.session), c.status, c.errType)
				if n := hits.Load(); n != 0 {
					t.Fatalf("a refused caller made the server send %d requests", n)
				}
			})
		}

		// The same member made an administrator gets both fetches.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+s.orgID+"/members/"+memberID,
			map[string]any{"is_admin": true}), 200, "")
		r = oidc(member)
		apptest.Want(t, r, 200, "")
		if w, _ := r.Data()["warning"].(string); w == "" || hits.Load() != 1 {
			t.Fatalf("admin oidc update: %d requests, %s", hits.Load(), r.Raw)
		}
		r = saml(member)
		apptest.Want(t, r, 200, "")
		if c := r.Data()["connection"].(map[string]any); c["status"] != "active" || c["idp_sso_url"] != s.idp.idp.SSOURL.String() ||
			hits.Load() != 2 {
			t.Fatalf("admin saml update by url: %d requests, %s", hits.Load(), r.Raw)
		}
	})
}
