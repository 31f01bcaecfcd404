package sso_test

import (
	"encoding/base64"
	"testing"

	"github.com/beevik/etree"

	"github.com/latchkey/latchkey/internal/apptest"
)

// SAML bindings 3.5.5.2 (HTTP-POST): "If the message is signed, the
// Destination XML attribute in the root SAML element of the protocol
// message MUST contain the URL to which the sender has instructed the
// user agent to deliver the message." A signed Response without one was
// accepted (gosaml2 compares Destination only when it is there); it is
// refused as one with the wrong Destination is. A Response that is not
// signed itself (only its assertion) may leave Destination out: the
// assertion's signed Recipient says where it was sent.
func TestSAMLSignedResponseNeedsADestination(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		undestined := func(resp *etree.Element) {
			if resp.SelectAttr("Destination") == nil {
				t.Fatal("the IdP's response has no Destination to remove")
			}
			resp.RemoveAttr("Destination")
		}

		// Signed by the IdP, with its Destination: logs in.
		acs, form := s.idp.follow(s.start(nil))
		form.Set("SAMLResponse", s.idp.resign(form.Get("SAMLResponse"), func(*etree.Element) {}))
		tokenFrom(t, s.post(acs, form))

		// Signed by the IdP, without a Destination: refused.
		acs, form = s.idp.follow(s.start(nil))
		form.Set("SAMLResponse", s.idp.resign(form.Get("SAMLResponse"), undestined))
		wantPage(t, s.post(acs, form), 400, "invalid_saml_response")

		// The Response unsigned (its assertion signed), without a
		// Destination: logs in.
		acs, form = s.idp.follow(s.start(nil))
		raw, err := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
		if err != nil {
			t.Fatal(err)
		}
		doc := etree.NewDocument()
		if err := doc.ReadFromBytes(raw); err != nil {
			t.Fatal(err)
		}
		unsign(doc.Root())
		undestined(doc.Root())
		out, err := doc.WriteToBytes()
		if err != nil {
			t.Fatal(err)
		}
		form.Set("SAMLResponse", base64.StdEncoding.EncodeToString(out))
		tokenFrom(t, s.post(acs, form))
	})
}
