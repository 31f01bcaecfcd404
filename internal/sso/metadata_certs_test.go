package sso_test

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// idpEntityXML is an identity provider's EntityDescriptor for entityID
// whose HTTP-Redirect SingleSignOnServices are ssoURLs and whose signing
// KeyDescriptors carry certs (PEM), each in order. A cert prefixed "any:"
// is listed with no use attribute, which means signing as well.
func idpEntityXML(entityID string, ssoURLs []string, certs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="%s">`+
		`<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">`, entityID)
	for _, c := range certs {
		use := ` use="signing"`
		if rest, ok := strings.CutPrefix(c, "any:"); ok {
			c, use = rest, ""
		}
		block, _ := pem.Decode([]byte(c))
		fmt.Fprintf(&b, `<md:KeyDescriptor%s><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">`+
			`<ds:X509Data><ds:X509Certificate>%s</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
			use, base64.StdEncoding.EncodeToString(block.Bytes))
	}
	for _, u := range ssoURLs {
		fmt.Fprintf(&b, `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="%s"/>`, u)
	}
	b.WriteString(`</md:IDPSSODescriptor></md:EntityDescriptor>`)
	return b.String()
}

// metadataServer serves the document last given to set, and returns its
// URL in a body for PUT .../url.
func metadataServer(t *testing.T) (byURL map[string]any, set func(doc string)) {
	t.Helper()
	var doc atomic.Pointer[string]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/samlmetadata+xml")
		_, _ = w.Write([]byte(*doc.Load()))
	}))
	t.Cleanup(srv.Close)
	return map[string]any{"metadata_url": srv.URL + "/metadata"}, func(d string) { doc.Store(&d) }
}

// certTexts are the PEM certificates of a connection answer, in order.
func certTexts(c map[string]any) []string {
	var out []string
	for _, v := range c["verification_certificates"].([]any) {
		out = append(out, strings.TrimSpace(v.(map[string]any)["certificate"].(string)))
	}
	return out
}

// An identity provider mid-rollover lists several signing certificates and
// may sign with any: the metadata URL adds every one that has not expired
// (the one valid now it signs with, listed second, and one staged ahead),
// so a login signed with the second works; a certificate listed twice
// counts once, and new ones that would take the connection past five are
// refused, changing nothing.
func TestSAMLMetadataAddsEverySigningCertificate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		byURL, set := metadataServer(t)
		entity, sso := s.idp.idp.MetadataURL.String(), []string{s.idp.idp.SSOURL.String()}
		now := e.Clock.Now()
		old := s.idp.certPEM() // held, still valid
		expired := pemFrom(t, now.Add(-48*time.Hour), now.Add(-time.Hour))
		current := s.idp.rotate(now.Add(-time.Hour), now.Add(48*time.Hour)) // the IdP signs with it from now on
		staged := pemFrom(t, now.Add(24*time.Hour), now.Add(96*time.Hour))

		set(idpEntityXML(entity, sso, expired, old, current, "any:"+staged))
		r := e.Backend(http.MethodPut, path+"/url", byURL)
		apptest.Want(t, r, 200, "")
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		acs, form := s.idp.follow(s.start(nil))
		res := s.post(acs, form)
		if res.Status != http.StatusFound {
			t.Fatalf("login signed with the second listed certificate: %d %s", res.Status, res.Raw)
		}
		a := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, res)}, "")
		apptest.Want(t, a, 200, "")
		got := certTexts(r.Body["connection"].(map[string]any))
		if want := trimAll([]string{old, current, staged}); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("stored %d certificates, want the held one, then the current and the staged one: %v", len(got), got)
		}

		// Four held: the IdP's next certificate listed twice (with and
		// without use) is one new one, and fits.
		next := pemFrom(t, now.Add(-time.Hour), now.Add(48*time.Hour))
		set(idpEntityXML(entity, sso, current, next, "any:"+next))
		r = e.Backend(http.MethodPut, path+"/url", byURL)
		apptest.Want(t, r, 200, "")
		if got := certTexts(r.Body["connection"].(map[string]any)); len(got) != 4 {
			t.Fatalf("after the next certificate listed twice: %d certificates", len(got))
		}
		// Two new ones would make six: refused, the connection unchanged.
		before := samlConnection(t, e, s.orgID, s.connID)
		set(idpEntityXML(entity, []string{"https://idp.example/elsewhere"}, certPEM(t, "a"), certPEM(t, "b")))
		apptest.Want(t, e.Backend(http.MethodPut, path+"/url", byURL), 400, "too_many_sso_verification_certificates")
		after := samlConnection(t, e, s.orgID, s.connID)
		if fmt.Sprint(certIDs(after)) != fmt.Sprint(certIDs(before)) || after["idp_sso_url"] != sso[0] {
			t.Fatalf("after the refused update: %v", after)
		}
		// One new one fits: five.
		set(idpEntityXML(entity, sso, certPEM(t, "c")))
		r = e.Backend(http.MethodPut, path+"/url", byURL)
		apptest.Want(t, r, 200, "")
		if got := certIDs(r.Body["connection"].(map[string]any)); len(got) != 5 {
			t.Fatalf("after one more: %v", got)
		}
	})
}

// Of several HTTP-Redirect SingleSignOnServices the first, the one the
// identity provider lists first, is taken.
func TestSAMLMetadataFirstRedirectEndpoint(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		byURL, set := metadataServer(t)
		entity, sso := s.idp.idp.MetadataURL.String(), s.idp.idp.SSOURL.String()
		set(idpEntityXML(entity, []string{sso, "https://idp.example/second"}, s.idp.certPEM()))
		r := e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID+"/url", byURL)
		apptest.Want(t, r, 200, "")
		if got := r.Body["connection"].(map[string]any)["idp_sso_url"]; got != sso {
			t.Fatalf("idp_sso_url %v, want the first listed %s", got, sso)
		}
	})
}

func trimAll(in []string) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = strings.TrimSpace(v)
	}
	return out
}

// Metadata wrapped in an EntitiesDescriptor (older Keycloak endpoints) is
// read when exactly one entity in it is an identity provider; with several
// the answer asks for the entity's own metadata URL. Of several
// HTTP-Redirect endpoints the first is taken. Entity declarations are not
// expanded.
func TestSAMLMetadataEntitiesDescriptor(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		byURL, set := metadataServer(t)
		entity, sso := s.idp.idp.MetadataURL.String(), s.idp.idp.SSOURL.String()
		spOnly := `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example/">` +
			`<md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
			`<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.example/acs" index="0"/>` +
			`</md:SPSSODescriptor></md:EntityDescriptor>`
		wrap := func(entities ...string) string {
			return `<EntitiesDescriptor Name="urn:keycloak" ` +
				`xmlns="urn:oasis:names:tc:SAML:2.0:metadata">` + strings.Join(entities, "") + `</EntitiesDescriptor>`
		}

		// Renamed first, so the update from the metadata is seen.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"idp_entity_id": "https://before.example/", "idp_sso_url": "https://before.example/sso"}), 200, "")
		set(`<?xml version="1.0" encoding="UTF-8"?>` + wrap(spOnly, idpEntityXML(entity, []string{sso, "https://idp.example/second"}, s.idp.certPEM())))
		r := e.Backend(http.MethodPut, path+"/url", byURL)
		apptest.Want(t, r, 200, "")
		c := r.Body["connection"].(map[string]any)
		if c["idp_entity_id"] != entity || c["idp_sso_url"] != sso || c["status"] != "active" {
			t.Fatalf("from the wrapped entity: %s", r.Raw)
		}
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		acs, form := s.idp.follow(s.start(nil))
		apptest.Want(t, s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, s.post(acs, form))}, ""), 200, "")

		// Two identity providers: which one is meant is not guessed.
		set(wrap(idpEntityXML(entity, []string{sso}, s.idp.certPEM()), idpEntityXML("https://other.example/", []string{"https://other.example/sso"}, certPEM(t, "other"))))
		wantMessage(t, e.Backend(http.MethodPut, path+"/url", byURL), 400, "invalid_xml_from_saml_metadata_url", "own entity")
		// No identity provider at all.
		set(wrap(spOnly))
		apptest.Want(t, e.Backend(http.MethodPut, path+"/url", byURL), 400, "invalid_xml_from_saml_metadata_url")
		// An entity declared in a DTD is not expanded: the document is refused.
		set(`<?xml version="1.0"?><!DOCTYPE EntitiesDescriptor [<!ENTITY big "https://evil.example/">]>` +
			wrap(idpEntityXML("&big;", []string{sso}, s.idp.certPEM())))
		apptest.Want(t, e.Backend(http.MethodPut, path+"/url", byURL), 400, "invalid_xml_from_saml_metadata_url")
		if c := samlConnection(t, e, s.orgID, s.connID); c["idp_entity_id"] != entity || c["idp_sso_url"] != sso {
			t.Fatalf("after the refused updates: %v", c)
		}
	})
}

// An active connection may not delete its last certificate that verifies
// signatures, even with others left: an expired one or one staged further
// ahead than the clock skew would leave it active and failing every login.
// One staged within the skew counts; deleting one that verifies nothing is
// allowed.
func TestSAMLDeleteLastValidCertificate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		now := e.Clock.Now()
		add := func(text string) string {
			t.Helper()
			r := e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": text})
			apptest.Want(t, r, 200, "")
			ids := certIDs(r.Body["connection"].(map[string]any))
			return ids[len(ids)-1]
		}
		valid := certIDs(samlConnection(t, e, s.orgID, s.connID))[0] // until now+24h
		expiring := add(pemFrom(t, now.Add(-time.Hour), now.Add(time.Minute)))
		later := now.Add(2 * time.Minute)
		far := add(pemFrom(t, later.Add(time.Hour), later.Add(48*time.Hour)))
		setClock(e, later) // expiring has expired

		refused := func(id string) {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodDelete, path+"/verification_certificates/"+id, nil), 400, "cannot_delete_last_sso_verification_key")
		}
		deleted := func(id string) {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodDelete, path+"/verification_certificates/"+id, nil), 200, "")
		}
		refused(valid) // only the expired and the far-off staged one would be left
		if c := samlConnection(t, e, s.orgID, s.connID); len(certIDs(c)) != 3 || c["status"] != "active" {
			t.Fatalf("after the refusal: %v", c)
		}
		soon := add(pemFrom(t, later.Add(30*time.Second), later.Add(48*time.Hour)))
		deleted(valid)    // soon verifies within the skew
		deleted(expiring) // verified nothing
		refused(soon)     // far would be left alone
		deleted(far)
		refused(soon) // the last one
	})
}
