package sso_test

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// pemFrom is the certificate's PEM made by idpKeyPair for the window.
func pemFrom(t *testing.T, notBefore, notAfter time.Time) string {
	t.Helper()
	_, cert := idpKeyPair(t, notBefore, notAfter)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
}

// wantMessage checks an error answer's type and that its message says
// what it must.
func wantMessage(t *testing.T, r apptest.Resp, status int, errType, says string) {
	t.Helper()
	apptest.Want(t, r, status, errType)
	if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, says) {
		t.Fatalf("error_message %q does not say %q", msg, says)
	}
}

// An identity provider's certificate that has expired is refused at
// upload, naming its NotAfter, instead of being stored and failing every
// login as a bad signature; the connection keeps the certificates it had.
// One not valid yet is stored beside the current one (a rotation staged
// ahead of the identity provider's switch).
func TestSAMLCertificateOutsideItsValidityRefusedAtUpload(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		now := e.Clock.Now()
		expiredAt := now.Add(-time.Hour).UTC().Truncate(time.Second)
		wantMessage(t, e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": pemFrom(t, now.Add(-48*time.Hour), expiredAt)}),
			400, "invalid_request", "expired on "+expiredAt.Format(time.RFC3339))
		if ids := certIDs(samlConnection(t, e, s.orgID, s.connID)); len(ids) != 1 {
			t.Fatalf("certificates after the refusal: %v", ids)
		}
		startsAt := now.Add(time.Hour).UTC().Truncate(time.Second)
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": pemFrom(t, startsAt, now.Add(48*time.Hour))}), 200, "")
		if ids := certIDs(samlConnection(t, e, s.orgID, s.connID)); len(ids) != 2 {
			t.Fatalf("certificates after staging the next one: %v", ids)
		}
	})
}

// A certificate that expired after it was stored fails the login with the
// signature error, saying which certificate expired and when.
func TestSAMLLoginWithACertificateExpiredSinceSaysSo(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		now := e.Clock.Now()
		notAfter := now.Add(30 * time.Second).UTC().Truncate(time.Second)
		r := e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
			map[string]any{"x509_certificate": s.idp.rotate(now.Add(-time.Hour), notAfter)})
		apptest.Want(t, r, 200, "")
		ids := certIDs(r.Body["connection"].(map[string]any))
		acs, form := s.idp.follow(s.start(nil))
		setClock(e, now.Add(time.Minute))
		res := s.post(acs, form)
		wantPage(t, res, 400, "invalid_signature_saml_response")
		if want := ids[len(ids)-1] + " expired on " + notAfter.Format(time.RFC3339); !strings.Contains(string(res.Raw), want) {
			t.Fatalf("the page does not say %q: %s", want, res.Raw)
		}
		// A signature by a certificate the connection does not hold says
		// nothing of expiry.
		s.idp.rotate(now.Add(-time.Hour), now.Add(time.Hour))
		acs, form = s.idp.follow(s.start(nil))
		res = s.post(acs, form)
		wantPage(t, res, 400, "invalid_signature_saml_response")
		if strings.Contains(string(res.Raw), "expired on") {
			t.Fatalf("an unknown certificate reported as expired: %s", res.Raw)
		}
	})
}

// The metadata URL follows the same rule: metadata whose only signing
// certificate has expired is refused, naming it; metadata listing an
// expired certificate before a current one (a rotation under way) gives
// the current one.
func TestSAMLMetadataCertificateValidity(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		now := e.Clock.Now()
		expiredAt := now.Add(-time.Hour).UTC().Truncate(time.Second)
		expired, current := pemFrom(t, now.Add(-48*time.Hour), expiredAt), pemFrom(t, now.Add(-time.Hour), now.Add(48*time.Hour))
		var certs []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			var kds strings.Builder
			for _, c := range certs {
				block, _ := pem.Decode([]byte(c))
				fmt.Fprintf(&kds, `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">`+
					`<ds:X509Data><ds:X509Certificate>%s</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
					base64.StdEncoding.EncodeToString(block.Bytes))
			}
			fmt.Fprintf(w, `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example/entity">`+
				`<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">%s`+
				`<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/>`+
				`</md:IDPSSODescriptor></md:EntityDescriptor>`, kds.String())
		}))
		t.Cleanup(srv.Close)
		byURL := map[string]any{"metadata_url": srv.URL + "/metadata"}

		certs = []string{expired}
		wantMessage(t, e.Backend(http.MethodPut, path+"/url", byURL), 400, "invalid_xml_from_saml_metadata_url",
			"expired on "+expiredAt.Format(time.RFC3339))
		if ids := certIDs(samlConnection(t, e, s.orgID, s.connID)); len(ids) != 1 {
			t.Fatalf("certificates after the refusal: %v", ids)
		}

		// One whose NotBefore is a few seconds ahead (an identity provider's
		// new certificate, its clock ahead of ours) is taken, as an upload
		// of it is, when the metadata lists none valid now.
		ahead := pemFrom(t, now.Add(30*time.Second), now.Add(48*time.Hour))
		certs = []string{expired, ahead}
		r := e.Backend(http.MethodPut, path+"/url", byURL)
		apptest.Want(t, r, 200, "")
		vcs := r.Body["connection"].(map[string]any)["verification_certificates"].([]any)
		if got := vcs[len(vcs)-1].(map[string]any)["certificate"]; len(vcs) != 2 || strings.TrimSpace(got.(string)) != strings.TrimSpace(ahead) {
			t.Fatalf("stored %v, want the certificate not valid yet added", vcs)
		}

		certs = []string{expired, ahead, current}
		r = e.Backend(http.MethodPut, path+"/url", byURL)
		apptest.Want(t, r, 200, "")
		vcs = r.Body["connection"].(map[string]any)["verification_certificates"].([]any)
		if got := vcs[len(vcs)-1].(map[string]any)["certificate"]; len(vcs) != 3 || strings.TrimSpace(got.(string)) != strings.TrimSpace(current) {
			t.Fatalf("stored %v, want the current certificate added", vcs)
		}
	})
}
