package sso

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// The allowlists apply to the signature method and to every reference's
// digest on their own (a SHA-256 signature over a SHA-1 digest is as weak
// as SHA-1), to signatures under any prefix, and not to an encryption
// method's digest.
func TestCheckAlgorithms(t *testing.T) {
	sig := func(prefix, method, digest string) string {
		p := prefix
		if p != "" {
			p += ":"
		}
		return `<` + p + `Signature xmlns` + map[bool]string{true: ":" + prefix, false: ""}[prefix != ""] + `="http://www.w3.org/2000/09/xmldsig#">` +
			`<` + p + `SignedInfo><` + p + `SignatureMethod Algorithm="` + method + `"/><` + p + `Reference URI="#a">` +
			`<` + p + `DigestMethod Algorithm="` + digest + `"/></` + p + `Reference></` + p + `SignedInfo></` + p + `Signature>`
	}
	const (
		rsa256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
		ec512  = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512"
		rsa1   = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
		dsa1   = "http://www.w3.org/2000/09/xmldsig#dsa-sha1"
		sha1   = "http://www.w3.org/2000/09/xmldsig#sha1"
		sha256 = "http://www.w3.org/2001/04/xmlenc#sha256"
		sha384 = "http://www.w3.org/2001/04/xmldsig-more#sha384"
	)
	oaep := `<xenc:EncryptedKey xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"><xenc:EncryptionMethod ` +
		`Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"><ds:DigestMethod xmlns:ds="http://www.w3.org/2000/09/xmldsig#" ` +
		`Algorithm="` + sha1 + `"/></xenc:EncryptionMethod></xenc:EncryptedKey>`
	for _, c := range []struct {
		name, xml, refused string
	}{
		{"rsa-sha256", sig("ds", rsa256, sha256), ""},
		{"ecdsa-sha512 with sha384, default namespace", sig("", ec512, sha384), ""},
		{"rsa-sha1", sig("ds", rsa1, sha256), rsa1},
		{"dsa-sha1, not listed", sig("ds", dsa1, sha256), dsa1},
		{"sha1 digest under rsa-sha256", sig("dsig", rsa256, sha1), sha1},
		{"assertion's signature", `<Assertion>` + sig("ds", rsa256, sha1) + `</Assertion>`, sha1},
		{"rsa-oaep's sha1 digest is no signature's", oaep + sig("ds", rsa256, sha256), ""},
		{"a Signature of another namespace", `<x:Signature xmlns:x="urn:x"><x:SignedInfo><x:SignatureMethod Algorithm="` + rsa1 +
			`"/></x:SignedInfo></x:Signature>`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">` + c.xml + `</samlp:Response>`
			err := (&Service{}).checkAlgorithms(base64.StdEncoding.EncodeToString([]byte(doc)), nil)
			var ae *apierr.Error
			switch {
			case c.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused != "" && (!errors.As(err, &ae) || ae.Type != apierr.InvalidSignatureSAMLResponse ||
				!strings.Contains(ae.Message, c.refused)):
				t.Fatalf("got %v, want %s refused", err, c.refused)
			}
		})
	}
	// gosaml2 also reads deflated XML: so does the check.
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write([]byte(`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">` + sig("ds", rsa1, sha1) + `</samlp:Response>`))
	w.Close()
	if err := (&Service{}).checkAlgorithms(base64.StdEncoding.EncodeToString(z.Bytes()), nil); err == nil {
		t.Fatal("a deflated rsa-sha1 response passed")
	}
}
