package sso_test

import (
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
)

func rsaPEM(t *testing.T) string {
	t.Helper()
	k := testkeys.Next() // any key will do, and the pool's cost nothing
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

// TestSAMLAdmin covers the SAML administration calls of the backend face:
// update by metadata URL, list, certificate and key deletion, delete.
func TestSAMLAdmin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		// The IdP's certificate is valid around the real time, and one
		// not valid by the server's clock is refused.
		setClock(e, time.Now())
		idp := newSAMLIdP(t)
		orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		base := "/v1/b2b/sso/saml/" + orgID
		r := e.Backend(http.MethodPost, base, map[string]any{"identity_provider": "nope"})
		apptest.Want(t, r, 400, "invalid_request")
		r = e.Backend(http.MethodPost, base, map[string]any{})
		apptest.Want(t, r, 200, "")
		c := r.Body["connection"].(map[string]any)
		id := c["connection_id"].(string)
		if !strings.HasPrefix(id, "saml-connection-test-") || c["identity_provider"] != "generic" ||
			len(c["signing_certificates"].([]any)) != 1 || c["acs_url"] != e.Srv.URL+"/v1/b2b/sso/callback/"+id ||
			c["audience_uri"] != e.Srv.URL+"/v1/b2b/sso/saml/metadata/"+id {
			t.Fatalf("created: %s", r.Raw)
		}
		// Pending connections are not offered.
		org := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+orgID, nil).Body["organization"].(map[string]any)
		if len(org["sso_active_connections"].([]any)) != 0 || org["sso_default_connection_id"] != nil {
			t.Fatalf("pending connection offered: %v", org)
		}
		start := "/v1/public/sso/start?public_token=" + e.Project.PublicToken + "&connection_id=" + id
		wantPage(t, e.Get(start), 400, "sso_connection_not_active")

		r = e.Backend(http.MethodPut, base+"/connections/"+id+"/url", map[string]any{"metadata_url": idp.idp.MetadataURL.String()})
		apptest.Want(t, r, 200, "")
		c = r.Body["connection"].(map[string]any)
		certs := c["verification_certificates"].([]any)
		if c["status"] != "active" || c["idp_sso_url"] != idp.idp.SSOURL.String() || len(certs) != 1 {
			t.Fatalf("by url: %s", r.Raw)
		}
		r = e.Backend(http.MethodPut, base+"/connections/"+id+"/url", map[string]any{"metadata_url": e.Srv.URL + "/nothing"})
		apptest.Want(t, r, 400, "invalid_saml_metadata_url")
		// Reachable, but not IdP metadata.
		r = e.Backend(http.MethodPut, base+"/connections/"+id+"/url", map[string]any{"metadata_url": e.Srv.URL + "/healthz"})
		apptest.Want(t, r, 400, "invalid_xml_from_saml_metadata_url")

		// An encryption key: its certificate is listed, the key never is.
		keyPEM := rsaPEM(t)
		r = e.Backend(http.MethodPut, base+"/connections/"+id, map[string]any{"saml_encryption_private_key": keyPEM})
		apptest.Want(t, r, 200, "")
		keys := r.Body["connection"].(map[string]any)["encryption_private_keys"].([]any)
		if len(keys) != 1 || strings.Contains(string(r.Raw), "PRIVATE KEY") {
			t.Fatalf("encryption key: %s", r.Raw)
		}
		keyID := keys[0].(map[string]any)["private_key_id"].(string)

		r = e.Backend(http.MethodGet, "/v1/b2b/sso/"+orgID, nil)
		apptest.Want(t, r, 200, "")
		if len(r.Body["saml_connections"].([]any)) != 1 || len(r.Body["oidc_connections"].([]any)) != 0 {
			t.Fatalf("list: %s", r.Raw)
		}

		r = e.Backend(http.MethodDelete, base+"/connections/"+id+"/encryption_private_keys/"+keyID, nil)
		apptest.Want(t, r, 200, "")
		if r.Body["private_key_id"] != keyID {
			t.Fatalf("delete key: %s", r.Raw)
		}
		// A certificate rotation: the active connection's only
		// certificate stays until the next one is added, then goes.
		certID := certs[0].(map[string]any)["certificate_id"].(string)
		r = e.Backend(http.MethodDelete, base+"/connections/"+id+"/verification_certificates/"+certID, nil)
		apptest.Want(t, r, 400, "cannot_delete_last_sso_verification_key")
		r = e.Backend(http.MethodPut, base+"/connections/"+id, map[string]any{"x509_certificate": certPEM(t, "next idp")})
		apptest.Want(t, r, 200, "")
		r = e.Backend(http.MethodDelete, base+"/connections/"+id+"/verification_certificates/"+certID, nil)
		apptest.Want(t, r, 200, "")
		if r.Body["certificate_id"] != certID {
			t.Fatalf("delete certificate: %s", r.Raw)
		}
		certs = samlConnection(t, e, orgID, id)["verification_certificates"].([]any)
		if len(certs) != 1 || certs[0].(map[string]any)["issuer"] != "next idp" {
			t.Fatalf("after the rotation: %v", certs)
		}
		org = e.Backend(http.MethodGet, "/v1/b2b/organizations/"+orgID, nil).Body["organization"].(map[string]any)
		if len(org["sso_active_connections"].([]any)) != 1 {
			t.Fatalf("not active after the rotation: %v", org)
		}

		// Another organization cannot reach the connection.
		other := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		r = e.Backend(http.MethodDelete, "/v1/b2b/sso/"+other+"/connections/"+id, nil)
		apptest.Want(t, r, 404, "sso_connection_not_found")
		r = e.Backend(http.MethodDelete, "/v1/b2b/sso/"+orgID+"/connections/"+id, nil)
		apptest.Want(t, r, 200, "")
		r = e.Backend(http.MethodGet, "/v1/b2b/sso/"+orgID, nil)
		if len(r.Body["saml_connections"].([]any)) != 0 {
			t.Fatalf("after delete: %s", r.Raw)
		}
	})
}

// TestSDKAdmin: the logged-in member's organization, changes for admins
// only.
func TestSDKAdmin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		acs, form := s.idp.follow(s.start(nil))
		token := tokenFrom(t, s.post(acs, form))
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
		apptest.Want(t, r, 200, "")
		session := r.Data()["session_token"].(string)
		memberID := r.Data()["member_id"].(string)

		// A plain member holds no stytch.sso permission in the built-in
		// policy, so even reading the connections is refused.
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/sso", nil, session), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{}, session), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/sso", nil, ""), 401, "user_unauthenticated")

		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+s.orgID+"/members/"+memberID, map[string]any{"is_admin": true})
		apptest.Want(t, r, 200, "")
		r = e.SDK(http.MethodGet, "/b2b/sso", nil, session)
		apptest.Want(t, r, 200, "")
		if len(r.Data()["saml_connections"].([]any)) != 1 {
			t.Fatalf("sdk list as admin: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{"display_name": "Acme OIDC"}, session)
		apptest.Want(t, r, 200, "")
		oidcID := r.Data()["connection"].(map[string]any)["connection_id"].(string)
		r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"client_id": "abc", "client_secret": "s3cret",
			"issuer": e.Srv.URL + "/no-such-issuer"}, session)
		apptest.Want(t, r, 200, "")
		if !strings.Contains(r.Data()["warning"].(string), "discovery document") || strings.Contains(string(r.Raw), "s3cret") ||
			r.Data()["connection"].(map[string]any)["status"] != "pending" {
			t.Fatalf("oidc update: %s", r.Raw)
		}
		r = e.SDK(http.MethodDelete, "/b2b/sso/"+oidcID, nil, session)
		apptest.Want(t, r, 200, "")

		// SAML create and update answer in the SDK's declared shape (Do
		// fails on any undeclared field): encryption keys by the SDK's name.
		r = e.SDK(http.MethodPost, "/b2b/sso/saml", map[string]any{"display_name": "Acme SAML 2"}, session)
		apptest.Want(t, r, 200, "")
		c := r.Data()["connection"].(map[string]any)
		if keys, ok := c["saml_encryption_private_keys"].([]any); !ok || len(keys) != 0 || c["encryption_private_keys"] != nil {
			t.Fatalf("sdk saml create: %s", r.Raw)
		}
		r = e.SDK(http.MethodPut, "/b2b/sso/saml/"+c["connection_id"].(string), map[string]any{"saml_encryption_private_key": rsaPEM(t)}, session)
		apptest.Want(t, r, 200, "")
		if keys := r.Data()["connection"].(map[string]any)["saml_encryption_private_keys"].([]any); len(keys) != 1 ||
			strings.Contains(string(r.Raw), "PRIVATE KEY") {
			t.Fatalf("sdk saml update: %s", r.Raw)
		}
	})
}

// TestDeleteGoneCertificateOrKey: deleting a verification certificate or
// an encryption key the connection no longer has answers the not-found
// types the API family names for them, on both faces. The vendor's Admin
// Portal deletes the certificates an admin struck out when they save, and
// takes sso_verification_key_not_found as "already gone" (another admin
// was quicker); any other error leaves the admin stuck in the edit form.
func TestDeleteGoneCertificateOrKey(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		e.CreateAdmin(s.orgID, "root@acme.test")
		session := e.SessionFor(s.orgID, "root@acme.test")
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		// A second certificate, so that the first may go (an active
		// connection keeps one).
		r := e.Backend(http.MethodPut, path, map[string]any{"saml_encryption_private_key": rsaPEM(t),
			"x509_certificate": certPEM(t, "next idp")})
		apptest.Want(t, r, 200, "")
		c := r.Body["connection"].(map[string]any)
		certID := c["verification_certificates"].([]any)[0].(map[string]any)["certificate_id"].(string)
		keyID := c["encryption_private_keys"].([]any)[0].(map[string]any)["private_key_id"].(string)

		sdkCert := "/b2b/sso/saml/" + s.connID + "/verification_certificates/" + certID
		apptest.Want(t, e.SDK(http.MethodDelete, sdkCert, nil, session), 200, "")
		apptest.Want(t, e.SDK(http.MethodDelete, sdkCert, nil, session), 404, "sso_verification_key_not_found")
		apptest.Want(t, e.Backend(http.MethodDelete, path+"/verification_certificates/"+certID, nil), 404, "sso_verification_key_not_found")

		apptest.Want(t, e.Backend(http.MethodDelete, path+"/encryption_private_keys/"+keyID, nil), 200, "")
		apptest.Want(t, e.Backend(http.MethodDelete, path+"/encryption_private_keys/"+keyID, nil), 404, "sso_encryption_private_key_not_found")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/sso/saml/"+s.connID+"/encryption_private_key/"+keyID, nil, session),
			404, "sso_encryption_private_key_not_found")
	})
}
