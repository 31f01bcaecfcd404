package sso_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/latchkey/latchkey/internal/apptest"
)

// wantAlgorithmRefused checks a refused login's page: the SAML signature
// error, naming the algorithm.
func wantAlgorithmRefused(t *testing.T, r apptest.Resp, alg string) {
	t.Helper()
	wantPage(t, r, 400, "invalid_signature_saml_response")
	if !strings.Contains(string(r.Raw), alg) {
		t.Fatalf("the page does not name %s: %s", alg, r.Raw)
	}
}

// SAML signatures by SHA-1 are refused even when made by the identity
// provider's own key, whether on the response, on a plain assertion or on
// an encrypted one (seen once decrypted); the same responses signed with
// RSA-SHA256 log in.
func TestSAMLSHA1SignaturesAreRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		sha1Sig := func() func() {
			s.idp.signatureMethod, s.idp.idp.SignatureMethod = dsig.RSASHA1SignatureMethod, dsig.RSASHA1SignatureMethod
			return func() { s.idp.signatureMethod, s.idp.idp.SignatureMethod = "", dsig.RSASHA256SignatureMethod }
		}

		t.Run("sha256 passes", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			form.Set("SAMLResponse", s.idp.resignAssertion(form.Get("SAMLResponse"), func(*etree.Element) {}))
			raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
			if strings.Contains(string(raw), "sha1") || !strings.Contains(string(raw), dsig.RSASHA256SignatureMethod) {
				t.Fatalf("not signed with RSA-SHA256 alone: %s", raw)
			}
			tokenFrom(t, s.post(acs, form))
		})
		t.Run("response and assertion by rsa-sha1", func(t *testing.T) {
			defer sha1Sig()()
			acs, form := s.idp.follow(s.start(nil))
			form.Set("SAMLResponse", s.idp.resignAssertion(form.Get("SAMLResponse"), func(*etree.Element) {}))
			raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
			if !strings.Contains(string(raw), dsig.RSASHA1SignatureMethod) {
				t.Fatalf("not signed with RSA-SHA1: %s", raw)
			}
			wantAlgorithmRefused(t, s.post(acs, form), dsig.RSASHA1SignatureMethod)
		})
		t.Run("assertion by rsa-sha1 in a response by rsa-sha256", func(t *testing.T) {
			restore := sha1Sig()
			acs, form := s.idp.follow(s.start(nil))
			restore()
			// Only the response is signed again, with SHA-256.
			form.Set("SAMLResponse", s.idp.resign(form.Get("SAMLResponse"), func(*etree.Element) {}))
			wantAlgorithmRefused(t, s.post(acs, form), dsig.RSASHA1SignatureMethod)
		})
		t.Run("encrypted assertion by rsa-sha1", func(t *testing.T) {
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
				map[string]any{"saml_encryption_private_key": rsaPEM(t)}), 200, "")
			restore := sha1Sig()
			acs, form := s.idp.follow(s.start(nil))
			restore()
			form.Set("SAMLResponse", s.idp.resign(form.Get("SAMLResponse"), func(*etree.Element) {}))
			raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
			if !strings.Contains(string(raw), "EncryptedAssertion") || strings.Contains(string(raw), dsig.RSASHA1SignatureMethod) {
				t.Fatalf("want an encrypted assertion in a response signed by RSA-SHA256: %s", raw)
			}
			wantAlgorithmRefused(t, s.post(acs, form), dsig.RSASHA1SignatureMethod)
			// The same, signed by SHA-256 throughout, logs in (the
			// encryption's own RSA-OAEP digest is no signature's).
			acs, form = s.idp.follow(s.start(nil))
			tokenFrom(t, s.post(acs, form))
		})
	})
}
