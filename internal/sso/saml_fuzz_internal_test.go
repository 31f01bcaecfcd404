package sso

import (
	"bytes"
	"compress/flate"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
)

// The fuzz target's identity provider and an attacker, each a fixed
// RSA-2048 key and self-signed certificate (valid 2026-12-01 to 2048-10-26),
// so that the committed corpus stays signed by the same keys on every run.
const (
	fuzzIdPKey = `-----BEGIN PRIVATE KEY-----
MIIEuwIBADANBgkqhkiG9w0BAQEFAASCBKUwggShAgEAAoIBAQDQe1YCJuAoD6Nf
zcoR9w9Ypr67k0Y/E4WL0XpFLbO5lJ8Jab0I/CQvFCNWSaj8qxbZSwfaFCVjKH6B
FWHQ2dXjgzsDflAzn6RyayPsBZfI8kCeDxpfHQIx9KQlexWgJ13RzEWvp2It9/bE
C1jGvQ6DmJOdSsGlzBnfJTDJuzaldfOqIi1+jmJ0r//dYYly5yjs60xQVI4RL4MS
DSSvcF3uDVG0Zu/DoA9cBOA08cI9lsGAQdZu40w/3lNTCa+KssFbhgB6qxZDfpBT
q5ig1Fn+tFJww5315WwHri3/Yck9VkhsF5ARYIK93ZAfXkiMtwZXUu9ts8sewVHu
zecRQCjTAgMBAAECgf9sCiky9EfgeuTaFnX22WcaifmjO1nWq5yJg1qEfyqkVwtp
KrghRTQl3EnJGGMlOC9JwZhQFiCfQlz3MsgoyLq510gTMg0Is7KE7lZZ+eFZltvl
t+3yscBxeFZDFjDJePJ7HAurpmflapshqBUEPkqcknVCY3tMcHj31aNy55IU1sV7
PIKO5WWsYRJ01ZHjrZSX748d8sPim771CsjhTRyNwnaq7gqzUR3a+2Qo0nVDAOD6
BME40iHhJ3U3uyBTR3+4JvFRiLjIoMo4gEbK5HsJkw1bMgc4fE6TZeVBIRMdauCE
hfn5M3CQYGHTdeA1roVcUDZcRBd++ftAz94SJnECgYEA/xMhGZpWZAfJpATGqhLl
o2vXspEXLbZq3pAjBzcSmDt8EeUF3nJSStscrmy5WgV87BboS+u49MgZn2jTSKGo
HwfrJA34uGQ/TioorXkwUNXnoV3ShJPeNXnSfRJ6QPP2cCYH5WHM7EELdakiM3Rr
aAIdA2VFdaLz/hE0cjC8SCUCgYEA0TzwXuamtpKjT/E6Vuc/AcOePapSL8qcMEfK
c8+tjBaDtVZWsYxuSAfKxheRRAmKxLnzJRA0l7l3glAelR0Arozhn7KH1i75U9Id
nguoAtzLO3/PjaU3uQI01PkT7ChDjxJ5fLO8mYObiLRJhaaoHkBN5t+g6ytEsAuq
lzGGv5cCgYEAh79oeDW5EFdMqquYBt8zszsree7ZhQx156iR278leDsAFo3qB66T
uR7PLszR/+S3zPWL/wueTTdI25twBlFyJcGTFIcS/R7sye6J43iBjCOquCg0ZzZC
pfcFXGa/BV5QovK6dQsNghZDwQSYHQYyOxIU2r/ErYxhia8iWDszmLkCgYA43ism
X+HntSsVyyZkAC2ruRMFB4mW26ZfqONpXoR4kpXxbynYz6YZhaSi+jzNFRrWJQPk
iucAZbQJguUM+fj5d+jKkqdAmzvAgFb0YY6kWIYUAcTTZpgifGsHhzrW8IqMFCVY
szELOC3JldZ1sLn4ntmNajI+OGBOyJzwwtEwuQKBgCvzVkP2Jgjz2ZvJ2t3/pp+a
ivZaY75m84QLRYJulEtH4JkRaFhCJevP17Ga7iAhrLPY/B6unlGJinm23M7gzNv5
FJbJO0RbrWUeoyz1LRcyzEAzszHNt7Fv4MKK0D4OlAXlNziSz3rA1BfbNAPFnbZt
2yH/fHD73/3cTT1G0zLc
-----END PRIVATE KEY-----`
	fuzzIdPCert = `-----BEGIN CERTIFICATE-----
MIIDFTCCAf2gAwIBAgIUO1d5FIbqYOeBVP+K3JOlyQ/jcSQwDQYJKoZIhvcNAQEL
BQAwGjEYMBYGA1UEAwwPaWRwLmV4YW1wbGUuY29tMB4XDTI2MTIwMTAxMjIxOVoX
DTQ4MTAyNjAxMjIxOVowGjEYMBYGA1UEAwwPaWRwLmV4YW1wbGUuY29tMIIBIjAN
BgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0HtWAibgKA+jX83KEfcPWKa+u5NG
PxOFi9F6RS2zuZSfCWm9CPwkLxQjVkmo/KsW2UsH2hQlYyh+gRVh0NnV44M7A35Q
M5+kcmsj7AWXyPJAng8aXx0CMfSkJXsVoCdd0cxFr6diLff2xAtYxr0Og5iTnUrB
pcwZ3yUwybs2pXXzqiItfo5idK//3WGJcuco7OtMUFSOES+DEg0kr3Bd7g1RtGbv
w6APXATgNPHCPZbBgEHWbuNMP95TUwmvirLBW4YAeqsWQ36QU6uYoNRZ/rRScMOd
9eVsB64t/2HJPVZIbBeQEWCCvd2QH15IjLcGV1LvbbPLHsFR7s3nEUAo0wIDAQAB
o1MwUTAdBgNVHQ4EFgQUMjk+6gfwLJqbdLLejN1lD8+Z1jEwHwYDVR0jBBgwFoAU
Mjk+6gfwLJqbdLLejN1lD8+Z1jEwDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0B
AQsFAAOCAQEAJaBtNgeweJ/NkwAMhY0fGoKBW+CGXb3Ga7aiXUs1fXtKqUDxznXB
uKSHbHq/Kt3ZIheq29l3dmZtR6+U2FeUjpxfbAXXlHQ1gRdKMBcHQ12Zuoz8y67l
KEahkEcjprD3EzVaeLznxEouFMrh+m3sw+AnDfXyDJVL31UAGsdeczDkD0AKA3LL
oaym688Dvr6j3temIp7mtntwUvGRLBZCYYpEaFu5sUdH9g6kvPTuVRXubgvXKlNL
SWe7gtzbMkgVESvmAmtU/iRoxyZDBd2TOBUe3gZSoy0v/eVwbI0YMh6r1fQNdqSU
KYQc7+EQvLyLCR0UyplaS1wYjPsudx1/1w==
-----END CERTIFICATE-----`
	fuzzAttackerKey = `-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDxg4mGvKKSYaP7
I8hOfPRYxbvYBoTsf3geXn8JZ5migELXj6K/oPCG/cKsTzdlDP3Igw0PIEm+iy7n
ENy7GmE8ceBOEmyN42/5STGsGuMhBx2psWWzlbuBO4UbcR9xBqOfZXA24rTQtCAo
RQ6cW64/So0Ejyi1v01MaxprylgVZF+CzrZ5zXqLfWHwl9Fu0ebvbXNRRC56CMR0
zcTU2ZjtWkcqgzrANPgwbZ96PMmoszgFFJUPa9HKJcWs4Gn6qWY29hig4Rfmj7Cm
lKQyf09QK40b+vT8ZxeIi+Zp0a9W86n8augmLenFjkiLT6a0iNLIEBZBYzjPKen/
oE6QFPzFAgMBAAECggEAKINBoxXqiXaSjNK8S5o/XNLSh1LUol1hl2qPkdLMnUs5
qzI/gTiskGBp8wCY0L0kpymAm8x1Ql7Tn9Qeys4KiJqrnz0M86I2ytDh4bZi6kvo
yGnnHwBbgzqqQeeweAO+l8Lq13IhFa9Zg5fN8yGX8ar+S8j98brk6xA+Tt2S+Ada
YzlSYmRGqEY1UFOVwlRM0Xe4vnv711Ib6L09VsaoLNhio5GuoffvA9MNmtTom1cO
W18c8RBw86v1Uyx0gWsd80nL0F5LKgb3gPm5vIA0q4LPZ9Q6HdRo6l3tMfIUFRao
WP6iTR7uuROuXH0PrfVi2wTfMUr0ygxuim8ErMSQAQKBgQD+KTJCy8KUKIt2d9j2
fJliKTbzgyBFfZCx/RwAlLXhxqzQqk3YZvuntWqkLU1ah5PHVVRCepqtSS427cF/
f9MuolLuTLg7kfVIKosGTd3vxar+745b1NZfGzI/g60LxvVRjhxEqnZhBG9VoeO8
d3fH7icDWzgiXKF/cRlOgrKExQKBgQDzQungfh2BNJ6iNikBNTbxgRkAgT40YXmv
aQ4tXYnuv12dKE5joDMV666F8Hbep3tn0+SAo0rQaeRnkGDV96ZF9lSAT24RPdZq
rL9f4DsGbiPCulczAc4/zu+Xmk3m5DcVnlANXGoZPy89PQKcDb8008rdx15T44CL
F1KLfDAYAQKBgQDRFODE9Exwh14bKgJw2xVvHAqZjoBIyj/zPA4CKFPrlP3rdn4t
jKJvV52Py7i7xZZ7P6XePm/qJ659/17T3TrEPULNyI0ybCMEqALQP9RYgBroN/e7
cb6cZIoUl+UOMDD1U1vL3RMfQn+4SUJIc1s1PKQZbbwjAGLWrRqtbHUhJQKBgGJq
Rdhu7VzifvM9WiWE8++MvSK5JwNmFCblJ7kuyKjwft0f+2bO3xwVN4w0lsLJm2GM
Fjv81D2xOZi0jpjCEmDnoZQvjmYnUGHj9aDCRN77HDihzrlyF5E1FTWOVcn9tlNm
sxhUtQ/1whTSZAXigeLLdJ15FS53MgATtW99FLABAoGABykQByBz0JdKqu/oEDyd
aGBQbFnjSDUwTqGA/rVLEN6SZD45R7sAUp2mtkzTAPmpYiNPJTQYtVLvsxRfJjVR
ccXPyG8peul3PKsULRQBoVfiLDmzuj2v3jZGSC6K78sQ5R8NG24f1LQgX3R+TYsp
Rqs9g7E0o2gM7MQRj/wsFVQ=
-----END PRIVATE KEY-----`
	fuzzAttackerCert = `-----BEGIN CERTIFICATE-----
MIIDHzCCAgegAwIBAgIUc/kKIeSaLa0tR/faGHzSA0ji2uIwDQYJKoZIhvcNAQEL
BQAwHzEdMBsGA1UEAwwUYXR0YWNrZXIuZXhhbXBsZS5jb20wHhcNMjYxMjAxMDEy
MjIwWhcNNDgxMDI2MDEyMjIwWjAfMR0wGwYDVQQDDBRhdHRhY2tlci5leGFtcGxl
LmNvbTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAPGDiYa8opJho/sj
yE589FjFu9gGhOx/eB5efwlnmaKAQtePor+g8Ib9wqxPN2UM/ciDDQ8gSb6LLucQ
3LsaYTxx4E4SbI3jb/lJMawa4yEHHamxZbOVu4E7hRtxH3EGo59lcDbitNC0IChF
Dpxbrj9KjQSPKLW/TUxrGmvKWBVkX4LOtnnNeot9YfCX0W7R5u9tc1FELnoIxHTN
xNTZmO1aRyqDOsA0+DBtn3o8yaizOAUUlQ9r0colxazgafqpZjb2GKDhF+aPsKaU
pDJ/T1ArjRv69PxnF4iL5mnRr1bzqfxq6CYt6cWOSItPprSI0sgQFkFjOM8p6f+g
TpAU/MUCAwEAAaNTMFEwHQYDVR0OBBYEFC2TjvPCi8919AWd7/RFMf51l5oPMB8G
A1UdIwQYMBaAFC2TjvPCi8919AWd7/RFMf51l5oPMA8GA1UdEwEB/wQFMAMBAf8w
DQYJKoZIhvcNAQELBQADggEBAHb9IV7jmGnlGz3s0Daj1l94D8JMgH6ip1VTUlsp
U2VKHLVbKWTr1nseYbKVV9e8Ylmk1b7qVFaQvoHntLypeib8cENDaz9VqgzeCauJ
a1Re7R9zSZL7O/mfsFijwzuN5g3BtLQodFAMF+988YtJY0foSP9zZC5mVjBRgyBW
7RL6BCT/vJZ2+1pMmxG6A4qA6NUYkSc/a3gRq3UOwb2FMXNpLLyKrj3t7gRcK5io
x6LEys/0PoGHiYg2iKN+T0GcmyhoXrKubA6kc5C7SVKUpePgFckgNLGuRQp4yjTm
N/wBzVO94/bIEVFt8YEp4b6qwuHBr2Kz0yigIpHQClUYOqY=
-----END CERTIFICATE-----`
)

// samlFuzzNow is the fuzz target's clock: inside the seeds' windows.
var samlFuzzNow = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	samlFuzzBase   = "https://auth.example.com"
	samlFuzzConnID = "saml-connection-test-6f1c"
	samlFuzzIssuer = "https://idp.example.com/metadata"
)

// samlFuzzConn is a SAML connection that trusts fuzzIdPCert alone.
func samlFuzzConn() *conn {
	return &conn{ID: samlFuzzConnID, Kind: KindSAML, SAML: &samlConfig{
		IdPEntityID: samlFuzzIssuer, IdPSSOURL: "https://idp.example.com/sso",
		VerificationCertificates: []storedCert{{ID: "saml-verification-certificate-test-1", PEM: fuzzIdPCert}},
		AttributeMapping:         map[string]any{"email": "mail"},
	}}
}

// samlFuzzResponse is a response to request _req1 naming nameID, its
// assertion and/or the response signed with the key pair signer (PEMs).
func samlFuzzResponse(t testing.TB, keyPEM, certPEM, nameID string, signAssertion, signResponse bool) []byte {
	t.Helper()
	acs, aud := acsURL(samlFuzzBase, samlFuzzConnID), metadataURL(samlFuzzBase, samlFuzzConnID)
	doc := etree.NewDocument()
	err := doc.ReadFromString(`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ` +
		`xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r1" Version="2.0" IssueInstant="2029-12-31T23:59:50Z" ` +
		`Destination="` + acs + `" InResponseTo="_req1"><saml:Issuer>` + samlFuzzIssuer + `</saml:Issuer>` +
		`<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
		`<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a1" Version="2.0" IssueInstant="2029-12-31T23:59:50Z">` +
		`<saml:Issuer>` + samlFuzzIssuer + `</saml:Issuer>` +
		`<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">` + nameID + `</saml:NameID>` +
		`<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData ` +
		`InResponseTo="_req1" NotOnOrAfter="2030-01-01T00:05:00Z" Recipient="` + acs + `"/></saml:SubjectConfirmation></saml:Subject>` +
		`<saml:Conditions NotBefore="2029-12-31T23:55:00Z" NotOnOrAfter="2030-01-01T00:05:00Z"><saml:AudienceRestriction>` +
		`<saml:Audience>` + aud + `</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
		`<saml:AuthnStatement AuthnInstant="2029-12-31T23:59:50Z" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>` +
		`urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
		`<saml:AttributeStatement><saml:Attribute Name="mail" FriendlyName="email"><saml:AttributeValue>` + nameID +
		`</saml:AttributeValue></saml:Attribute><saml:Attribute Name="groups"><saml:AttributeValue>admins</saml:AttributeValue>` +
		`<saml:AttributeValue>staff</saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion></samlp:Response>`)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		t.Fatal(err)
	}
	ctx := dsig.NewDefaultSigningContext(dsig.TLSCertKeyStore(pair))
	ctx.Canonicalizer = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")
	// sign replaces el by its signed copy (the Signature its last child:
	// the enveloped transform makes its place irrelevant to the digest,
	// and neither gosaml2 nor goxmldsig requires it after the Issuer).
	sign := func(el *etree.Element) *etree.Element {
		signed, err := ctx.SignEnveloped(el)
		if err != nil {
			t.Fatal(err)
		}
		if p := el.Parent(); p != nil {
			i := el.Index()
			p.RemoveChildAt(i)
			p.InsertChildAt(i, signed)
		}
		return signed
	}
	if signAssertion {
		sign(doc.Root().FindElement("Assertion"))
	}
	if signResponse {
		doc.SetRoot(sign(doc.Root()))
	}
	out, err := doc.WriteToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzVerifySAML feeds verifySAML responses (XML, or deflated XML, as
// posted before base64) mutated from real ones, for a connection that
// trusts one identity provider certificate. Properties: it never panics;
// every refusal is a catalogue error (the callback's page shows its type);
// and anything it accepts says exactly what the identity provider signed
// (the reference response's result): a response signed by another key, or
// one whose signed assertion was moved, wrapped or joined by an unsigned
// one, is never accepted with other content.
func FuzzVerifySAML(f *testing.F) {
	s := &Service{d: Deps{Clock: clock.NewFake(samlFuzzNow)}}
	c := samlFuzzConn()
	signedAssertion := samlFuzzResponse(f, fuzzIdPKey, fuzzIdPCert, "alice@example.com", true, false)
	want, err := s.verifySAML(c, samlFuzzBase, base64.StdEncoding.EncodeToString(signedAssertion))
	if err != nil {
		f.Fatalf("the reference response is refused: %v", err)
	}
	for _, ok := range [][]byte{samlFuzzResponse(f, fuzzIdPKey, fuzzIdPCert, "alice@example.com", false, true),
		samlFuzzResponse(f, fuzzIdPKey, fuzzIdPCert, "alice@example.com", true, true)} {
		if got, err := s.verifySAML(c, samlFuzzBase, base64.StdEncoding.EncodeToString(ok)); err != nil || !reflect.DeepEqual(got, want) {
			f.Fatalf("a response signed by the identity provider: %+v, %v", got, err)
		}
	}
	forged := samlFuzzResponse(f, fuzzAttackerKey, fuzzAttackerCert, "mallory@example.com", true, true)
	if _, err := s.verifySAML(c, samlFuzzBase, base64.StdEncoding.EncodeToString(forged)); err == nil {
		f.Fatal("a response signed by another key was accepted")
	}
	f.Add(signedAssertion)
	f.Add(samlFuzzResponse(f, fuzzIdPKey, fuzzIdPCert, "alice@example.com", false, true))
	f.Add(samlFuzzResponse(f, fuzzIdPKey, fuzzIdPCert, "alice@example.com", true, true))
	f.Add(forged)
	f.Add(samlFuzzResponse(f, fuzzAttackerKey, fuzzAttackerCert, "mallory@example.com", true, false))
	f.Add(samlFuzzResponse(f, fuzzIdPKey, fuzzIdPCert, "alice@example.com", false, false))
	// Wrapping: an unsigned assertion for mallory beside, or in place of,
	// the signed one, which is tucked into the response's Extensions.
	signed := string(signedAssertion)
	start, end := strings.Index(signed, "<saml:Assertion "), strings.Index(signed, "</saml:Assertion>")+len("</saml:Assertion>")
	evil := strings.ReplaceAll(samlFuzzUnsigned(f), "alice@", "mallory@")
	f.Add([]byte(signed[:end] + evil + signed[end:]))
	f.Add([]byte(signed[:start] + `<samlp:Extensions>` + signed[start:end] + `</samlp:Extensions>` + evil + signed[end:]))
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(signedAssertion)
	w.Close()
	f.Add(z.Bytes())
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := s.verifySAML(c, samlFuzzBase, base64.StdEncoding.EncodeToString(doc))
		if err != nil {
			var ae *apierr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("refused with an error outside the catalogue: %v", err)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("accepted with content the identity provider did not sign:\n got %+v\nwant %+v", got, want)
		}
	})
}

// samlFuzzUnsigned is the reference response's assertion, unsigned.
func samlFuzzUnsigned(t testing.TB) string {
	doc := string(samlFuzzResponse(t, fuzzIdPKey, fuzzIdPCert, "alice@example.com", false, false))
	return doc[strings.Index(doc, "<saml:Assertion ") : strings.Index(doc, "</saml:Assertion>")+len("</saml:Assertion>")]
}
