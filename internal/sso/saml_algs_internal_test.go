package sso

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"runtime"
	"strings"
	"testing"

	saml2 "github.com/russellhaering/gosaml2"

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
			doc := `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">` + c.xml +
				`<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"/></samlp:Response>`
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

// xmlBomb is a document of n empty elements, and deflated the same.
func xmlBomb(n int) (doc, deflated []byte) {
	doc = []byte("<r>" + strings.Repeat("<a/>", n) + "</r>")
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(doc)
	w.Close()
	return doc, z.Bytes()
}

// allocated is how many bytes fn allocates (the whole process's, so only
// a bound far from the cost it guards against is meaningful).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The check runs before anything authenticates the request, so it must not
// parse what gosaml2 would refuse to: a few kilobytes of deflated
// `<a/>`s (1.3 million elements, about 460 MiB of allocations when parsed
// into a tree) are left to gosaml2, which refuses them for their tokens,
// as is the same bomb sent undeflated. Measured in allocations, not time.
func TestCheckAlgorithmsBoundsTheParse(t *testing.T) {
	const limit = 50 << 20
	raw, deflated := xmlBomb(1_300_000)
	if len(deflated) > 16<<10 || len(raw) > maxInflated {
		t.Fatalf("bomb: %d bytes deflated, %d inflated", len(deflated), len(raw))
	}
	for name, doc := range map[string][]byte{"deflated": deflated, "raw": raw} {
		t.Run(name, func(t *testing.T) {
			encoded := base64.StdEncoding.EncodeToString(doc)
			var err error
			if n := allocated(func() { err = (&Service{}).checkAlgorithms(encoded, nil) }); n > limit {
				t.Fatalf("the check allocated %d MiB: it parsed the bomb", n>>20)
			}
			if err != nil {
				t.Fatalf("refused by the check, not left to gosaml2: %v", err)
			}
			if readXML(doc) != nil {
				t.Fatal("readXML parsed the bomb")
			}
		})
	}
}

// The bound is gosaml2's own: a response just within it is still checked
// (a SHA-1 signature refused), one token-bound over it is not parsed here,
// and gosaml2 refuses it before reading its signature.
func TestCheckAlgorithmsTokenBoundEdge(t *testing.T) {
	sig := `<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:SignatureMethod ` +
		`Algorithm="http://www.w3.org/2000/09/xmldsig#rsa-sha1"/></ds:SignedInfo></ds:Signature>`
	// response holds lt '<'s, and is deflated, as gosaml2 then reports
	// the token bound (undeflated, it reports failing to inflate).
	response := func(lt int) string {
		head, tail := `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">`+sig, `</samlp:Response>`
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, flate.BestCompression)
		w.Write([]byte(head + strings.Repeat("<a/>", lt-strings.Count(head+tail, "<")) + tail))
		w.Close()
		return base64.StdEncoding.EncodeToString(z.Bytes())
	}
	within, over := response((maxXMLTokens-1)/3), response((maxXMLTokens-1)/3+1) // 3*lt+1 <= maxXMLTokens, or not
	tooMany := func(encoded string) bool {
		_, err := (&saml2.SAMLServiceProvider{}).ValidateEncodedResponse(encoded)
		return err != nil && strings.Contains(err.Error(), "too many XML tokens")
	}
	if tooMany(within) || !tooMany(over) {
		t.Fatalf("gosaml2's default token bound is no longer %d", maxXMLTokens)
	}
	if err := (&Service{}).checkAlgorithms(within, nil); err == nil {
		t.Fatal("a SHA-1 signature within the token bound passed")
	}
	if err := (&Service{}).checkAlgorithms(over, nil); err != nil {
		t.Fatalf("a response over the token bound was parsed: %v", err)
	}
}

// The check refuses, before gosaml2 runs, a response whose root does not
// carry exactly one Assertion or EncryptedAssertion of the assertion
// namespace (under any prefix), with verifySAML's refusal; elements of
// those names elsewhere are not counted.
func TestCheckAlgorithmsAssertionCount(t *testing.T) {
	const ns = `xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"`
	assertion, encrypted := `<saml:Assertion `+ns+`/>`, `<saml:EncryptedAssertion `+ns+`/>`
	for _, c := range []struct {
		name, children string
		refused        bool
	}{
		{"one assertion", assertion, false},
		{"one encrypted assertion", encrypted, false},
		{"default namespace", `<Assertion xmlns="urn:oasis:names:tc:SAML:2.0:assertion"/>`, false},
		{"none", ``, true},
		{"two encrypted assertions", encrypted + encrypted, true},
		{"830 encrypted assertions", strings.Repeat(encrypted, 830), true},
		{"an assertion and an encrypted one", assertion + encrypted, true},
		{"two assertions", assertion + assertion, true},
		{"another namespace's Assertion is not one", assertion + `<x:Assertion xmlns:x="urn:x"/>`, false},
		{"nested ones are not the response's", `<saml:Assertion ` + ns + `>` + encrypted + `</saml:Assertion>`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">` + c.children + `</samlp:Response>`
			err := (&Service{}).checkAlgorithms(base64.StdEncoding.EncodeToString([]byte(doc)), nil)
			var ae *apierr.Error
			switch {
			case !c.refused && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused && (!errors.As(err, &ae) || ae.Type != apierr.InvalidSAMLResponse ||
				!strings.Contains(ae.Message, "exactly one assertion")):
				t.Fatalf("got %v, want refused for its assertions", err)
			}
		})
	}
}
