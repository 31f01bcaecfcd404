package sso_test

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/sso"
)

// long is prefix padded to n bytes.
func long(prefix string, n int) string { return prefix + strings.Repeat("a", n-len(prefix)) }

// paddedPEM is the PEM text of the first block of pemText with a header
// that makes it n bytes or a few more: a certificate or key that still
// parses.
func paddedPEM(t *testing.T, pemText string, n int) string {
	t.Helper()
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		t.Fatal("no PEM block")
	}
	size := len(pem.EncodeToMemory(block))
	block.Headers = map[string]string{"X-Pad": strings.Repeat("a", max(n-size, 1))}
	return string(pem.EncodeToMemory(block))
}

// wantRefusedField checks r is invalid_request naming field.
func wantRefusedField(t *testing.T, r apptest.Resp, field string) {
	t.Helper()
	apptest.Want(t, r, 400, "invalid_request")
	if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
		t.Fatalf("refusal names %v, want %s: %s", r.Body["error_details"], field, r.Raw)
	}
	if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "at most") {
		t.Fatalf("refusal does not give the bound: %s", r.Raw)
	}
}

// Every text an administrator sets on a SAML or OIDC connection, on
// either face, is bounded (URLs 2048 bytes, identifiers and secrets 1024,
// a certificate or private key 16 KiB of PEM, attribute_mapping 64
// entries): each was stored whatever its length (up to the 1 MiB request
// body) and then kept in the connection's row, its caches and every login.
// A value over its bound is refused as invalid_request naming the field,
// and the connection keeps what it had; one at the bound is stored.
func TestSSOConnectionFieldBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		e.CreateAdmin(s.orgID, "ada@acme.test")
		session := e.SessionFor(s.orgID, "ada@acme.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{"display_name": "Acme OIDC"})
		apptest.Want(t, r, 200, "")
		oidcID := r.Body["connection"].(map[string]any)["connection_id"].(string)
		entity := s.idp.idp.MetadataURL.String()

		faces := []struct {
			name string
			put  func(kind, id, suffix string, body map[string]any) apptest.Resp
		}{
			{"backend", func(kind, id, suffix string, body map[string]any) apptest.Resp {
				return e.Backend(http.MethodPut, "/v1/b2b/sso/"+kind+"/"+s.orgID+"/connections/"+id+suffix, body)
			}},
			{"sdk", func(kind, id, suffix string, body map[string]any) apptest.Resp {
				return e.SDK(http.MethodPut, "/b2b/sso/"+kind+"/"+id+suffix, body, session)
			}},
		}
		key := privatePEM(t, rsaKeyOf(t, 2048), true)
		mapping := map[string]any{}
		for i := range sso.MaxAttributeMappings + 1 {
			mapping[fmt.Sprintf("custom_%d", i)] = "attr"
		}
		url := func(n int) string { return long("https://idp.example.test/", n) }
		saml := []struct {
			field string
			body  map[string]any
		}{
			{"idp_entity_id", map[string]any{"idp_entity_id": long("https://idp.example.test/", sso.MaxIDBytes+1)}},
			{"idp_sso_url", map[string]any{"idp_sso_url": url(sso.MaxURLBytes + 1)}},
			{"alternative_audience_uri", map[string]any{"alternative_audience_uri": url(sso.MaxURLBytes + 1)}},
			{"alternative_acs_url", map[string]any{"alternative_acs_url": url(sso.MaxURLBytes + 1)}},
			{"nameid_format", map[string]any{"nameid_format": long("urn:oasis:names:tc:SAML:1.1:nameid-format:", sso.MaxIDBytes+1)}},
			{"x509_certificate", map[string]any{"x509_certificate": paddedPEM(t, s.idp.certPEM(), sso.MaxPEMBytes+1)}},
			{"signing_private_key", map[string]any{"signing_private_key": paddedPEM(t, key, sso.MaxPEMBytes+1)}},
			{"saml_encryption_private_key", map[string]any{"saml_encryption_private_key": paddedPEM(t, key, sso.MaxPEMBytes+1)}},
			{"attribute_mapping", map[string]any{"attribute_mapping": map[string]any{"email": long("", sso.MaxIDBytes+1)}}},
			{"attribute_mapping", map[string]any{"attribute_mapping": map[string]any{long("", sso.MaxIDBytes+1): "mail"}}},
			{"attribute_mapping", map[string]any{"attribute_mapping": mapping}},
			{"saml_group_implicit_role_assignments", map[string]any{"saml_group_implicit_role_assignments": []any{
				map[string]any{"role_id": "stytch_member", "group": long("", sso.MaxIDBytes+1)}}}},
		}
		oidc := []struct {
			field string
			body  map[string]any
		}{
			{"client_id", map[string]any{"client_id": long("", sso.MaxIDBytes+1)}},
			{"client_secret", map[string]any{"client_secret": long("", sso.MaxIDBytes+1)}},
			// With every endpoint given, so nothing is discovered.
			{"issuer", map[string]any{"issuer": url(sso.MaxURLBytes + 1), "authorization_url": url(64), "token_url": url(64),
				"jwks_url": url(64)}},
			{"authorization_url", map[string]any{"authorization_url": url(sso.MaxURLBytes + 1)}},
			{"token_url", map[string]any{"token_url": url(sso.MaxURLBytes + 1)}},
			{"userinfo_url", map[string]any{"userinfo_url": url(sso.MaxURLBytes + 1)}},
			{"jwks_url", map[string]any{"jwks_url": url(sso.MaxURLBytes + 1)}},
			{"custom_scopes", map[string]any{"custom_scopes": long("openid ", sso.MaxURLBytes+1)}},
			{"attribute_mapping", map[string]any{"attribute_mapping": map[string]any{"email": long("", sso.MaxIDBytes+1)}}},
			{"attribute_mapping", map[string]any{"attribute_mapping": mapping}},
		}
		for _, f := range faces {
			for i, c := range saml {
				t.Run(fmt.Sprintf("%s/saml/%d-%s", f.name, i, c.field), func(t *testing.T) {
					wantRefusedField(t, f.put("saml", s.connID, "", c.body), c.field)
					if got := samlConnection(t, e, s.orgID, s.connID); got["idp_entity_id"] != entity || len(certIDs(got)) != 1 {
						t.Fatalf("after refusing %s: %v", c.field, got)
					}
				})
			}
			for i, c := range oidc {
				t.Run(fmt.Sprintf("%s/oidc/%d-%s", f.name, i, c.field), func(t *testing.T) {
					wantRefusedField(t, f.put("oidc", oidcID, "", c.body), c.field)
				})
			}
			t.Run(f.name+"/metadata_url", func(t *testing.T) {
				wantRefusedField(t, f.put("saml", s.connID, "/url", map[string]any{"metadata_url": url(sso.MaxURLBytes + 1)}), "metadata_url")
			})
		}
		ext := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		for _, field := range []string{"external_organization_id", "external_connection_id"} {
			t.Run(field, func(t *testing.T) {
				body := map[string]any{"external_organization_id": s.orgID, "external_connection_id": s.connID}
				body[field] = long("", sso.MaxIDBytes+1)
				wantRefusedField(t, e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+ext, body), field)
			})
		}

		// At the bounds, stored.
		atBound := map[string]any{"idp_entity_id": long("https://idp.example.test/", sso.MaxIDBytes),
			"idp_sso_url": url(sso.MaxURLBytes), "alternative_audience_uri": url(sso.MaxURLBytes),
			"attribute_mapping": map[string]any{"email": long("", sso.MaxIDBytes)}}
		r = faces[1].put("saml", s.connID, "", atBound)
		apptest.Want(t, r, 200, "")
		if c := r.Data()["connection"].(map[string]any); c["idp_entity_id"] != atBound["idp_entity_id"] || c["idp_sso_url"] != atBound["idp_sso_url"] {
			t.Fatalf("at the bounds: %.300s", r.Raw)
		}
		r = faces[0].put("oidc", oidcID, "", map[string]any{"client_id": long("", sso.MaxIDBytes), "client_secret": long("", sso.MaxIDBytes),
			"token_url": url(sso.MaxURLBytes)})
		apptest.Want(t, r, 200, "")
		if c := r.Body["connection"].(map[string]any); c["token_url"] != url(sso.MaxURLBytes) {
			t.Fatalf("at the bounds: %.300s", r.Raw)
		}
	})
}

// Metadata read by URL is held to the same bounds: an entityID, an
// HTTP-Redirect SingleSignOnService Location or a signing certificate over
// its bound is refused as metadata (invalid_xml_from_saml_metadata_url
// naming the element and the bound) on either face, and the connection
// keeps its identity provider; the fetch allows 1 MB, all of which one
// value could fill.
func TestSAMLMetadataFieldBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		e.CreateAdmin(s.orgID, "ada@acme.test")
		session := e.SessionFor(s.orgID, "ada@acme.test")
		byURL, set := metadataServer(t)
		entity, sso0 := s.idp.idp.MetadataURL.String(), s.idp.idp.SSOURL.String()
		puts := map[string]func() apptest.Resp{
			"backend": func() apptest.Resp {
				return e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID+"/url", byURL)
			},
			"sdk": func() apptest.Resp { return e.SDK(http.MethodPut, "/b2b/sso/saml/"+s.connID+"/url", byURL, session) },
		}
		// A certificate whose base64 is spread over lines past the bound
		// still parses (parseCertificate drops the white space).
		block, _ := pem.Decode([]byte(s.idp.certPEM()))
		b64 := base64.StdEncoding.EncodeToString(block.Bytes)
		spread := b64[:10] + strings.Repeat(" ", sso.MaxPEMBytes) + b64[10:]
		doc := idpEntityXML(entity, []string{sso0}, s.idp.certPEM())
		for name, put := range puts {
			for _, c := range []struct{ name, doc, says string }{
				{"entityID", idpEntityXML(long("https://idp.example.test/", sso.MaxIDBytes+1), []string{sso0}, s.idp.certPEM()),
					fmt.Sprintf("entityID is longer than %d bytes", sso.MaxIDBytes)},
				{"Location", idpEntityXML(entity, []string{long("https://idp.example.test/sso?", sso.MaxURLBytes+1)}, s.idp.certPEM()),
					fmt.Sprintf("Location is longer than %d bytes", sso.MaxURLBytes)},
				{"X509Certificate", strings.Replace(doc, b64, spread, 1),
					fmt.Sprintf("X509Certificate is longer than %d bytes", sso.MaxPEMBytes)},
			} {
				t.Run(name+"/"+c.name, func(t *testing.T) {
					set(c.doc)
					wantMessage(t, put(), 400, "invalid_xml_from_saml_metadata_url", c.says)
					if got := samlConnection(t, e, s.orgID, s.connID); got["idp_entity_id"] != entity || got["idp_sso_url"] != sso0 {
						t.Fatalf("after the refusal: %v", got)
					}
				})
			}
		}
		// At the bounds, read.
		atBound := long("https://idp.example.test/", sso.MaxIDBytes)
		set(idpEntityXML(atBound, []string{long("https://idp.example.test/sso?", sso.MaxURLBytes)}, s.idp.certPEM()))
		r := puts["backend"]()
		apptest.Want(t, r, 200, "")
		if c := r.Body["connection"].(map[string]any); c["idp_entity_id"] != atBound {
			t.Fatalf("at the bounds: %.300s", r.Raw)
		}
	})
}

// An OpenID provider's discovery document whose endpoint is over
// MaxURLBytes is not used (the update's discovery warning): its endpoints
// would be stored as an update naming them would, unbounded. The same
// document with the endpoint shorter is used, so it is the length.
func TestOIDCDiscoveryFieldBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		for name, n := range map[string]int{"long": sso.MaxURLBytes + 1, "short": 64} {
			issuer := srv.URL + "/" + name
			mux.HandleFunc("/"+name+"/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
				writeJSON(w, map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/authorize",
					"token_endpoint": long(issuer+"/token?pad=", n), "jwks_uri": issuer + "/jwks"})
			})
		}
		orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		admin := orgAdmin(t, e, orgID)
		r := e.SDK(http.MethodPost, "/b2b/sso/oidc", map[string]any{"display_name": "Acme"}, admin)
		apptest.Want(t, r, 200, "")
		oidcID := r.Data()["connection"].(map[string]any)["connection_id"].(string)

		r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"issuer": srv.URL + "/long"}, admin)
		apptest.Want(t, r, 200, "")
		if w, _ := r.Data()["warning"].(string); !strings.Contains(w, "could not be read") ||
			r.Data()["connection"].(map[string]any)["token_url"] != "" {
			t.Fatalf("a discovered endpoint over the bound: %.400s", r.Raw)
		}
		r = e.SDK(http.MethodPut, "/b2b/sso/oidc/"+oidcID, map[string]any{"issuer": srv.URL + "/short"}, admin)
		apptest.Want(t, r, 200, "")
		if w, _ := r.Data()["warning"].(string); w != "" || r.Data()["connection"].(map[string]any)["token_url"] != long(srv.URL+"/short/token?pad=", 64) {
			t.Fatalf("a discovered endpoint under the bound: %.400s", r.Raw)
		}
	})
}
