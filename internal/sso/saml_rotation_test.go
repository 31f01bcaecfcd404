package sso_test

import (
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/russellhaering/gosaml2/types"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An encryption key rotation can be staged: after a new key is added, an
// assertion the IdP encrypted to the previous certificate (a login under
// way, or an IdP that has not re-read the metadata) still logs in; the
// metadata lists both certificates, the new one first, and a new login is
// encrypted to it. Once the previous key is deleted, an assertion
// encrypted to it is refused.
func TestSAMLEncryptionKeyRotation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		// addKey adds an encryption key and returns its id and the
		// certificate (base64 DER, as metadata carries it).
		addKey := func() (id, cert string) {
			t.Helper()
			r := e.Backend(http.MethodPut, path, map[string]any{"saml_encryption_private_key": rsaPEM(t)})
			apptest.Want(t, r, 200, "")
			keys := r.Body["connection"].(map[string]any)["encryption_private_keys"].([]any)
			k := keys[len(keys)-1].(map[string]any)
			block, _ := pem.Decode([]byte(k["private_key"].(string)))
			if block == nil {
				t.Fatalf("key certificate: %s", r.Raw)
			}
			return k["private_key_id"].(string), base64.StdEncoding.EncodeToString(block.Bytes)
		}
		// encryptedTo reports whether the IdP encrypted a response's
		// assertion to cert (crewjam names the certificate in the
		// EncryptedKey).
		encryptedTo := func(form url.Values, cert string) bool {
			raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
			return strings.Contains(string(raw), "EncryptedAssertion") && strings.Contains(string(raw), cert)
		}
		wantAda := func(r apptest.Resp) {
			t.Helper()
			token := tokenFrom(t, r)
			a := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
			apptest.Want(t, a, 200, "")
			if a.Data()["member"].(map[string]any)["email_address"] != "ada@acme.test" {
				t.Fatalf("member: %s", a.Raw)
			}
		}

		oldID, oldCert := addKey()
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		// Two logins reach the IdP before the rotation: it encrypts both
		// to the old certificate.
		acsA, formA := s.idp.follow(s.start(nil))
		acsB, formB := s.idp.follow(s.start(nil))
		if !encryptedTo(formA, oldCert) || !encryptedTo(formB, oldCert) {
			t.Fatal("the assertions are not encrypted to the old certificate")
		}

		_, newCert := addKey()
		var md types.EntityDescriptor
		r := e.Get("/v1/b2b/sso/saml/metadata/" + s.connID)
		if err := xml.Unmarshal(r.Raw, &md); err != nil || md.SPSSODescriptor == nil {
			t.Fatalf("metadata: %v %s", err, r.Raw)
		}
		var published []string
		for _, kd := range md.SPSSODescriptor.KeyDescriptors {
			if kd.Use == "encryption" {
				published = append(published, kd.KeyInfo.X509Data.X509Certificates[0].Data)
			}
		}
		if len(published) != 2 || published[0] != newCert || published[1] != oldCert {
			t.Fatalf("published encryption certificates %d, want new then old: %s", len(published), r.Raw)
		}

		wantAda(s.post(acsA, formA))
		// A login started now is encrypted to the new key, and works.
		acs, form := s.idp.follow(s.start(nil))
		if !encryptedTo(form, newCert) {
			t.Fatal("the assertion after the rotation is not encrypted to the new certificate")
		}
		wantAda(s.post(acs, form))

		apptest.Want(t, e.Backend(http.MethodDelete, path+"/encryption_private_keys/"+oldID, nil), 200, "")
		wantPage(t, s.post(acsB, formB), 400, "invalid_saml_response")
	})
}
