package sso

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
)

const (
	nsMetadata = "urn:oasis:names:tc:SAML:2.0:metadata"
	nsDSig     = "http://www.w3.org/2000/09/xmldsig#"
)

// FuzzReadMetadata feeds an update by metadata URL's reading and applying
// of the document (readMetadata, then applyMetadata to a new connection:
// what UpdateSAMLByURL does with the body, without the fetch and the
// database) metadata mutated from real-shaped documents. Whatever is
// refused is refused with a catalogue error below 500. Whatever is
// accepted is checked against the document as metadataFacts reads it
// (independently of gosaml2's types): the document names one identity
// provider; the connection's entity id is that entity's entityID attribute
// (trimmed, not empty); its SSO URL is an absolute http(s) URL that is the
// Location of one of the entity's HTTP-Redirect SingleSignOnServices (the
// only binding AuthnRequests are sent with); and each of its verification
// certificates parses, has not expired at the clock's now, and is one of
// the entity's signing certificates.
func FuzzReadMetadata(f *testing.F) {
	now := samlFuzzNow
	s := &Service{d: Deps{Clock: clock.NewFake(now)}}
	for _, seed := range metadataSeeds(f, now) {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		c := &conn{ID: samlFuzzConnID, Kind: KindSAML, SAML: &samlConfig{}}
		md, err := s.readMetadata(doc)
		if err == nil {
			err = s.applyMetadata(c, md)
		}
		if err != nil {
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status >= 500 {
				t.Fatalf("refused with an error outside the catalogue, or a 500: %v", err)
			}
			return
		}
		if msg := checkAppliedMetadata(c.SAML, doc, now); msg != "" {
			t.Fatalf("accepted, but %s\nentity id %q, SSO URL %q, %d certificates",
				msg, c.SAML.IdPEntityID, c.SAML.IdPSSOURL, len(c.SAML.VerificationCertificates))
		}
	})
}

// checkAppliedMetadata says how cfg, set from the metadata doc at now,
// breaks FuzzReadMetadata's properties, or "" when it does not.
func checkAppliedMetadata(cfg *samlConfig, doc []byte, now time.Time) string {
	entities, err := metadataFacts(doc)
	if err != nil {
		return "the document is not well-formed: " + err.Error()
	}
	var idps []metadataEntity
	for _, e := range entities {
		if e.idp {
			idps = append(idps, e)
		}
	}
	if len(idps) != 1 {
		return "the document names " + itoa(len(idps)) + " identity providers"
	}
	e := idps[0]
	if len(e.entityIDs) != 1 || cfg.IdPEntityID == "" || cfg.IdPEntityID != strings.TrimSpace(e.entityIDs[0]) {
		return "the entity id is not the entity's one entityID attribute " + strings.Join(e.entityIDs, ", ")
	}
	if u, err := url.Parse(cfg.IdPSSOURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "the SSO URL is not an absolute http(s) URL"
	}
	if !slices.ContainsFunc(e.redirect, func(l string) bool { return strings.TrimSpace(l) == cfg.IdPSSOURL }) {
		return "the SSO URL is no HTTP-Redirect SingleSignOnService's Location"
	}
	if len(cfg.VerificationCertificates) == 0 {
		return "no verification certificate was added"
	}
	for _, vc := range cfg.VerificationCertificates {
		cert, _, err := parseCertificate(vc.PEM)
		if err != nil {
			return "a verification certificate does not parse: " + err.Error()
		}
		if now.After(cert.NotAfter) {
			return "a verification certificate expired on " + cert.NotAfter.String()
		}
		if !slices.ContainsFunc(e.signing, func(der []byte) bool { return bytes.Equal(der, cert.Raw) }) {
			return "a verification certificate is none of the entity's signing certificates"
		}
	}
	return ""
}

// metadataEntity is what metadataFacts reads of one EntityDescriptor.
type metadataEntity struct {
	entityIDs []string // its unqualified entityID attributes
	idp       bool     // it has an IDPSSODescriptor
	redirect  []string // its IDPSSODescriptors' HTTP-Redirect SingleSignOnServices' Locations
	signing   [][]byte // the DER of its IDPSSODescriptors' signing (or use-less) KeyDescriptors' certificates
}

// metadataFacts reads, with encoding/xml's tokens alone, the
// EntityDescriptors of a metadata document that an identity provider may
// be taken from: the root, or the root EntitiesDescriptor's children. The
// document is read up to its root's end (as readMetadata reads it), in
// the encoding readMetadata reads it in (metadataDoc).
func metadataFacts(doc []byte) ([]metadataEntity, error) {
	text, err := newMetadataDoc(doc)
	if err != nil {
		return nil, err
	}
	dec := text.decoder()
	var (
		path     []xml.Name
		entities []metadataEntity
		e        *metadataEntity
		depth    int // of e's element
		use      string
		cert     *strings.Builder
	)
	// at reports whether the open elements from e's down are names, each
	// "namespace local".
	at := func(names ...string) bool {
		if e == nil || len(path) != depth-1+len(names) {
			return false
		}
		for i, n := range names {
			space, local, _ := strings.Cut(n, " ")
			if path[depth-1+i] != (xml.Name{Space: space, Local: local}) {
				return false
			}
		}
		return true
	}
	attrs := func(se xml.StartElement, name string) []string {
		var out []string
		for _, a := range se.Attr {
			if a.Name.Space == "" && a.Name.Local == name {
				out = append(out, a.Value)
			}
		}
		return out
	}
	const md, ds = nsMetadata + " ", nsDSig + " "
	certPath := []string{md + "EntityDescriptor", md + "IDPSSODescriptor", md + "KeyDescriptor", ds + "KeyInfo", ds + "X509Data", ds + "X509Certificate"}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			path = append(path, t.Name)
			switch {
			case t.Name == xml.Name{Space: nsMetadata, Local: "EntityDescriptor"} && (len(path) == 1 ||
				len(path) == 2 && path[0] == xml.Name{Space: nsMetadata, Local: "EntitiesDescriptor"}):
				entities = append(entities, metadataEntity{entityIDs: attrs(t, "entityID")})
				e, depth = &entities[len(entities)-1], len(path)
			case at(certPath[:2]...):
				e.idp = true
			case at(md+"EntityDescriptor", md+"IDPSSODescriptor", md+"SingleSignOnService"):
				if slices.Contains(attrs(t, "Binding"), bindingRedirect) {
					e.redirect = append(e.redirect, attrs(t, "Location")...)
				}
			case at(certPath[:3]...):
				use = strings.Join(attrs(t, "use"), " ")
			case at(certPath...) && (use == "" || use == "signing"):
				cert = &strings.Builder{}
			}
		case xml.CharData:
			if cert != nil && at(certPath...) {
				cert.Write(t)
			}
		case xml.EndElement:
			if cert != nil && at(certPath...) {
				if c, _, err := parseCertificate(cert.String()); err == nil {
					e.signing = append(e.signing, c.Raw)
				}
				cert = nil
			}
			if e != nil && len(path) == depth {
				e = nil
			}
			path = path[:len(path)-1]
			if len(path) == 0 {
				return entities, nil
			}
		}
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// metadataSeeds are real-shaped identity provider metadata documents (and
// attacks on the reader) for FuzzReadMetadata, whose clock reads now.
func metadataSeeds(t testing.TB, now time.Time) []string {
	b64 := func(certPEM string) string {
		block, _ := pem.Decode([]byte(certPEM))
		return base64.StdEncoding.EncodeToString(block.Bytes)
	}
	primary, secondary := b64(fuzzIdPCert), b64(fuzzAttackerCert)
	ec := b64(metadataFuzzCert(t, now.AddDate(-1, 0, 0), now.AddDate(3, 0, 0)))
	expired := b64(metadataFuzzCert(t, now.AddDate(-3, 0, 0), now.AddDate(0, -1, 0)))
	// wrapped is a certificate as ADFS prints it, 64 characters a line.
	wrapped := func(s string) string {
		var b strings.Builder
		for len(s) > 64 {
			b.WriteString(s[:64] + "\n")
			s = s[64:]
		}
		return b.String() + s
	}
	kd := func(use, cert string) string {
		if use != "" {
			use = ` use="` + use + `"`
		}
		return `<KeyDescriptor` + use + `><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>` +
			cert + `</X509Certificate></X509Data></KeyInfo></KeyDescriptor>`
	}
	mdkd := func(use, cert string) string {
		return `<md:KeyDescriptor use="` + use + `"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data>` +
			`<ds:X509Certificate>` + cert + `</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`
	}
	const (
		redirect = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
		post     = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
		proto    = `protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"`
		sig      = `<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:CanonicalizationMethod ` +
			`Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>` +
			`<ds:Reference URI="#_e1"><ds:DigestValue>3q2+7w==</ds:DigestValue></ds:Reference></ds:SignedInfo>` +
			`<ds:SignatureValue>c2lnbmF0dXJl</ds:SignatureValue></ds:Signature>`
	)
	okta := func(entityID, location, extra string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><md:EntityDescriptor entityID="` + entityID + `" ` + extra +
			`xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"><md:IDPSSODescriptor WantAuthnRequestsSigned="false" ` + proto + `>` +
			mdkd("signing", ec) +
			`<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat>` +
			`<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>` +
			`<md:SingleSignOnService Binding="` + post + `" Location="https://acme.okta.com/app/acme_latchkey_1/exk1a2b3c4/sso/saml"/>` +
			`<md:SingleSignOnService Binding="` + redirect + `" Location="` + location + `"/>` +
			`</md:IDPSSODescriptor></md:EntityDescriptor>`
	}
	adfs := `<?xml version="1.0" encoding="utf-8"?><EntityDescriptor ID="_e1" entityID="http://adfs.Contoso.com/adfs/services/trust" ` +
		`xmlns="urn:oasis:names:tc:SAML:2.0:metadata">` + sig +
		`<RoleDescriptor xsi:type="fed:ApplicationServiceType" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
		`xmlns:fed="http://docs.oasis-open.org/wsfed/federation/200706" protocolSupportEnumeration="http://docs.oasis-open.org/wsfed/federation/200706">` +
		kd("signing", primary) + `</RoleDescriptor>` +
		`<SPSSODescriptor WantAssertionsSigned="true" ` + proto + `>` + kd("encryption", ec) + kd("signing", primary) +
		`<AssertionConsumerService Binding="` + post + `" Location="https://adfs.contoso.com/adfs/ls/" index="0" isDefault="true"/></SPSSODescriptor>` +
		`<IDPSSODescriptor ` + proto + `>` + kd("encryption", ec) + kd("signing", wrapped(primary)) + kd("signing", "\n"+wrapped(secondary)+"\n") +
		`<SingleLogoutService Binding="` + redirect + `" Location="https://adfs.contoso.com/adfs/ls/"/>` +
		`<NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</NameIDFormat>` +
		`<NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</NameIDFormat>` +
		`<SingleSignOnService Binding="` + redirect + `" Location="https://adfs.contoso.com/adfs/ls/"/>` +
		`<SingleSignOnService Binding="` + post + `" Location="https://adfs.contoso.com/adfs/ls/"/>` +
		`<Attribute Name="http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri" ` +
		`FriendlyName="E-Mail Address" xmlns="urn:oasis:names:tc:SAML:2.0:assertion"/>` +
		`</IDPSSODescriptor></EntityDescriptor>`
	entra := `<?xml version="1.0" encoding="utf-8"?><EntityDescriptor ID="_e1" entityID="https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/" ` +
		`xmlns="urn:oasis:names:tc:SAML:2.0:metadata">` + sig +
		`<RoleDescriptor xsi:type="fed:SecurityTokenServiceType" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
		`xmlns:fed="http://docs.oasis-open.org/wsfed/federation/200706" protocolSupportEnumeration="http://docs.oasis-open.org/wsfed/federation/200706">` +
		kd("signing", primary) + `<fed:PassiveRequestorEndpoint><EndpointReference xmlns="http://www.w3.org/2005/08/addressing">` +
		`<Address>https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/wsfed</Address></EndpointReference>` +
		`</fed:PassiveRequestorEndpoint></RoleDescriptor>` +
		`<IDPSSODescriptor ` + proto + `>` + kd("signing", primary) +
		`<SingleLogoutService Binding="` + redirect + `" Location="https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/saml2"/>` +
		`<SingleSignOnService Binding="` + redirect + `" Location="https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/saml2"/>` +
		`<SingleSignOnService Binding="` + post + `" Location="https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/saml2"/>` +
		`</IDPSSODescriptor></EntityDescriptor>`
	sp := `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example.org/shibboleth">` +
		`<md:SPSSODescriptor ` + proto + `>` + mdkd("signing", ec) + `<md:AssertionConsumerService Binding="` + post +
		`" Location="https://sp.example.org/Shibboleth.sso/SAML2/POST" index="1"/></md:SPSSODescriptor></md:EntityDescriptor>`
	idp := func(entityID, host string, keys ...string) string {
		return `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="` + entityID + `">` +
			`<md:IDPSSODescriptor ` + proto + `>` + strings.Join(keys, "") +
			`<md:SingleSignOnService Binding="` + redirect + `" Location="https://` + host + `/idp/profile/SAML2/Redirect/SSO"/>` +
			`</md:IDPSSODescriptor></md:EntityDescriptor>`
	}
	aggregate := func(validUntil string, entities ...string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" ` +
			`Name="urn:mace:example.org:federation" validUntil="` + validUntil + `">` + strings.Join(entities, "") + `</md:EntitiesDescriptor>`
	}
	huge := strings.Repeat("a", 4<<10) // more only slows the fuzzer's minimizing
	encoded := func(enc interface{ String(string) (string, error) }, doc string) string {
		out, err := enc.String(doc)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	latin1 := strings.Replace(okta("https://idp.uni-münchen.example/idp", "https://idp.uni-münchen.example/sso", ""),
		`encoding="UTF-8"`, `encoding="ISO-8859-1"`, 1)
	return []string{
		adfs,
		entra,
		okta("http://www.okta.com/exk1a2b3c4", "https://acme.okta.com/app/acme_latchkey_1/exk1a2b3c4/sso/saml", ""),
		// Google's carries a validUntil, and one in the past.
		okta("https://accounts.google.com/o/saml2?idpid=C01abc234", "https://accounts.google.com/o/saml2/idp?idpid=C01abc234",
			`validUntil="2028-03-01T12:00:00.000Z" `),
		// validUntil is not read: schema-valid without a zone, and garbage.
		okta("https://idp.example.org/no-zone", "https://idp.example.org/sso", `validUntil="2028-03-01T12:00:00" cacheDuration="PT5H" `),
		okta("https://idp.example.org/garbage-date", "https://idp.example.org/sso", `validUntil="soon" cacheDuration="often" `),
		// Keycloak's older endpoint: one identity provider beside a service provider.
		aggregate("2031-01-01T00:00:00Z", sp, idp("https://keycloak.example.org/realms/acme", "keycloak.example.org", mdkd("signing", ec))),
		// A federation's aggregate: two identity providers.
		aggregate("2031-01-01T00:00:00Z", idp("https://idp.uni-a.example/idp", "idp.uni-a.example", mdkd("signing", primary)),
			idp("https://idp.uni-b.example/idp", "idp.uni-b.example", mdkd("signing", secondary))),
		idp("https://idp.example.org/encryption-only", "idp.example.org", mdkd("encryption", ec), mdkd("encryption", primary)),
		idp("https://idp.example.org/expired", "idp.example.org", mdkd("signing", expired)),
		idp("https://idp.example.org/rotating", "idp.example.org", mdkd("signing", expired), mdkd("signing", ec)),
		idp("https://idp.example.org/garbage", "idp.example.org", mdkd("signing", "not a certificate")),
		// An entity declared in a DTD: not expanded; one declared but unused.
		`<?xml version="1.0"?><!DOCTYPE md:EntityDescriptor [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">` +
			`<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>` + idp("https://idp.example.org/&c;", "idp.example.org", mdkd("signing", ec)),
		`<!DOCTYPE md:EntityDescriptor SYSTEM "http://127.0.0.1/evil.dtd">` + idp("https://idp.example.org/dtd", "idp.example.org", mdkd("signing", ec)),
		idp("https://idp.example.org/"+huge, huge+".example.org", mdkd("signing", ec)),
		okta("https://idp.example.org/huge", "https://idp.example.org/sso", `xmlns:x="urn:x" x:other="`+huge+`" `),
		// Edge cases of the values taken: a relative, a non-http and an empty Location; a blank entityID.
		okta("https://idp.example.org/relative", "/sso/saml", ""),
		okta("https://idp.example.org/javascript", "javascript:alert(1)", ""),
		okta("https://idp.example.org/empty", "   ", ""),
		okta("  ", "https://idp.example.org/sso", ""),
		// Encodings: Latin-1 and UTF-16 (read), Shift_JIS (refused).
		encoded(charmap.ISO8859_1.NewEncoder(), latin1),
		encoded(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder(), strings.Replace(latin1, "ISO-8859-1", "UTF-16", 1)),
		strings.Replace(latin1, "ISO-8859-1", "Shift_JIS", 1),
		"",
		"<",
	}
}

// metadataFuzzCert is a self-signed ECDSA P-256 certificate (PEM) valid
// from notBefore to notAfter.
func metadataFuzzCert(t testing.TB, notBefore, notAfter time.Time) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "idp.example.org"},
		NotBefore: notBefore, NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
