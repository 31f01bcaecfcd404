package sso_test

import (
	"bytes"
	"compress/flate"
	"crypto/x509"
	"encoding/base64"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/beevik/etree"
	"github.com/crewjam/saml/xmlenc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// deflatedBomb is n empty elements in one, deflated: 1.3 million of them
// inflate from a few kilobytes to just under gosaml2's 5 MiB limit.
func deflatedBomb(t *testing.T, n int) []byte {
	t.Helper()
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("<r>" + strings.Repeat("<a/>", n) + "</r>"))
	w.Close()
	return z.Bytes()
}

// postAllocating posts form to the ACS three times and returns the last
// answer with the fewest bytes the process allocated during one post, the
// server's handling included. The count is the whole process's, other
// tests' running in parallel included; the fewest of three keeps them out
// of it, and a post that parses a bomb costs far more every time.
func postAllocating(s *samlEnv, acs string, form map[string][]string) (r apptest.Resp, least uint64) {
	for i := 0; i < 3; i++ {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r = s.post(acs, form)
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; i == 0 || n < least {
			least = n
		}
	}
	return r, least
}

// The ACS answers anyone, so what it reads before any check is bounded as
// gosaml2 bounds it: a 7 KB deflated bomb of 1.3 million elements, sent as
// the response or as an encrypted assertion's plaintext, is refused as
// gosaml2 refuses it, without being parsed into a tree on the way (some
// 460 MiB of allocations when it was). Measured in allocations, not time;
// what remains is inflating it, which gosaml2 does too.
func TestSAMLACSRefusesXMLBombUnparsed(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		bomb := deflatedBomb(t, 1_300_000)

		t.Run("deflated response", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			form.Set("SAMLResponse", base64.StdEncoding.EncodeToString(bomb))
			wantRefusedUnparsed(t, e, s, acs, form, "invalid_xml_saml_response", "document contains too many XML tokens")
		})
		t.Run("encrypted assertion's plaintext", func(t *testing.T) {
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
				map[string]any{"saml_encryption_private_key": rsaPEM(t)}), 200, "")
			acs, form := s.idp.follow(s.start(nil))
			// The bomb replaces the assertion, encrypted as crewjam
			// encrypts it, to the certificate crewjam encrypted to; the
			// response is signed again, so only the plaintext is wrong.
			form.Set("SAMLResponse", s.idp.resign(form.Get("SAMLResponse"), func(resp *etree.Element) {
				ea := resp.FindElement("./EncryptedAssertion")
				certEl := resp.FindElement("//EncryptedKey/KeyInfo/X509Data/X509Certificate")
				if ea == nil || certEl == nil {
					t.Fatal("no encrypted assertion naming its certificate")
				}
				der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(certEl.Text()), ""))
				if err != nil {
					t.Fatal(err)
				}
				cert, err := x509.ParseCertificate(der)
				if err != nil {
					t.Fatal(err)
				}
				enc := xmlenc.OAEP()
				enc.BlockCipher, enc.DigestMethod = xmlenc.AES128CBC, &xmlenc.SHA1
				data, err := enc.Encrypt(cert, bomb, nil)
				if err != nil {
					t.Fatal(err)
				}
				data.CreateAttr("Type", "http://www.w3.org/2001/04/xmlenc#Element")
				for _, c := range ea.ChildElements() {
					ea.RemoveChild(c)
				}
				ea.AddChild(data)
			}))
			// Decrypted, and refused by gosaml2 for the plaintext's tokens.
			wantRefusedUnparsed(t, e, s, acs, form, "invalid_saml_response", "decrypted assertion bytes: document contains too many XML tokens")
		})
	})
}

// wantRefusedUnparsed posts form to acs and wants errType, the log line
// logged (gosaml2's refusal for the tokens), and no more than 50 MiB
// allocated: the bomb was not parsed into a tree.
func wantRefusedUnparsed(t *testing.T, e *apptest.Env, s *samlEnv, acs string, form map[string][]string, errType, logged string) {
	t.Helper()
	const limit = 50 << 20
	from := len(e.Logs())
	r, n := postAllocating(s, acs, form)
	wantPage(t, r, 400, errType)
	if l := e.Logs()[from:]; !strings.Contains(l, logged) {
		t.Fatalf("not refused for its tokens: %s", l)
	}
	t.Logf("%d MiB allocated", n>>20)
	if n > limit {
		t.Fatalf("the ACS allocated %d MiB: it parsed the bomb", n>>20)
	}
}
