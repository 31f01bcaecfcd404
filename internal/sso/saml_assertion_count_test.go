package sso_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/beevik/etree"

	"github.com/latchkey/latchkey/internal/apptest"
)

// gosaml2 decrypts every EncryptedAssertion of an unsigned response before
// it checks any signature, so the ACS refuses a response that does not
// carry exactly one assertion before gosaml2 sees it. Here a forged
// (unsigned) response carries three copies of the IdP's encrypted
// assertion, the first with a corrupted key: had gosaml2 run, it would
// have tried to decrypt that one and refused the response for it (a
// decryption failure, logged as such, with the catalogue's message). It is
// refused for its count instead, and nothing was decrypted.
func TestSAMLACSRefusesSeveralEncryptedAssertionsUndecrypted(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
			map[string]any{"saml_encryption_private_key": rsaPEM(t)}), 200, "")
		acs, form := s.idp.follow(s.start(nil))
		raw, err := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
		if err != nil {
			t.Fatal(err)
		}
		doc := etree.NewDocument()
		if err := doc.ReadFromBytes(raw); err != nil {
			t.Fatal(err)
		}
		resp := doc.Root()
		ea := resp.FindElement("./EncryptedAssertion")
		if ea == nil {
			t.Fatal("the IdP sent no encrypted assertion")
		}
		for _, c := range resp.ChildElements() {
			if c.Tag == "Signature" {
				resp.RemoveChild(c)
			}
		}
		bad := ea.Copy()
		key := bad.FindElement(".//EncryptedKey/CipherData/CipherValue")
		if key == nil {
			t.Fatal("no encrypted key")
		}
		key.SetText(base64.StdEncoding.EncodeToString(make([]byte, 256)))
		resp.InsertChildAt(ea.Index(), bad)
		resp.InsertChildAt(ea.Index()+1, ea.Copy())
		out, err := doc.WriteToBytes()
		if err != nil {
			t.Fatal(err)
		}
		form.Set("SAMLResponse", base64.StdEncoding.EncodeToString(out))

		from := len(e.Logs())
		r := s.post(acs, form)
		wantPage(t, r, 400, "invalid_saml_response")
		if !strings.Contains(string(r.Raw), "exactly one assertion") {
			t.Errorf("not refused for its assertions: %s", r.Raw)
		}
		if l := e.Logs()[from:]; strings.Contains(l, "decrypt") {
			t.Errorf("an assertion was decrypted: %s", l)
		}
	})
}
