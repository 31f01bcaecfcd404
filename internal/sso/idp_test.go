package sso_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"html"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/beevik/etree"
	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
)

// samlIdP is crewjam/saml's identity provider on loopback: an independent
// SAML implementation that reads our service-provider metadata, receives
// our AuthnRequest and posts back a signed (and, when our metadata offers
// an encryption key, encrypted) response.
type samlIdP struct {
	t    *testing.T
	srv  *httptest.Server
	idp  *saml.IdentityProvider
	cert *x509.Certificate

	mu sync.Mutex
	// user is who logs in next.
	user saml.Session
	// audience, when set, replaces our entity id in the service-provider
	// metadata the IdP believes (a wrong-audience assertion).
	audience string
	// extraACS, when set, is one more ACS URL the IdP believes our
	// metadata lists (a connection's alternative_acs_url, registered with
	// the IdP by hand), so it honours an AuthnRequest naming it.
	extraACS string
	// signatureMethod, when set, is the algorithm sign uses instead of
	// RSA-SHA256 (its digest follows it).
	signatureMethod string
	// client, when set, fetches our metadata instead of the default client
	// (our server on https, trusting its test certificate).
	client *http.Client
}

func newSAMLIdP(t *testing.T) *samlIdP {
	t.Helper()
	key, cert := idpKeyPair(t, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
	d := &samlIdP{t: t, cert: cert}
	mux := http.NewServeMux()
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	base, _ := url.Parse(d.srv.URL)
	out := io.Discard
	if os.Getenv("SSO_TEST_IDP_LOG") != "" {
		out = os.Stderr
	}
	d.idp = &saml.IdentityProvider{Key: key, Certificate: cert, Logger: log.New(out, "idp ", 0),
		MetadataURL:             *base.ResolveReference(&url.URL{Path: "/metadata"}),
		SSOURL:                  *base.ResolveReference(&url.URL{Path: "/sso"}),
		ServiceProviderProvider: d, SessionProvider: d, SignatureMethod: dsig.RSASHA256SignatureMethod}
	mux.HandleFunc("/metadata", d.idp.ServeMetadata)
	mux.HandleFunc("/sso", d.idp.ServeSSO)
	return d
}

// idpKeyPair is a signing key and its self-signed certificate, valid
// from notBefore to notAfter.
func idpKeyPair(t *testing.T, notBefore, notAfter time.Time) (*rsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key := testkeys.Next()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "crewjam test idp"},
		NotBefore: notBefore, NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert
}

// rotate gives the IdP a new signing key whose certificate is valid from
// notBefore to notAfter, and returns the certificate (PEM) to register.
func (d *samlIdP) rotate(notBefore, notAfter time.Time) string {
	d.t.Helper()
	key, cert := idpKeyPair(d.t, notBefore, notAfter)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cert, d.idp.Key, d.idp.Certificate = cert, key, cert
	return d.certPEM()
}

func (d *samlIdP) certPEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: d.cert.Raw}))
}

// GetServiceProvider fetches our metadata from its entity id (the
// metadata URL), as an administrator would configure the IdP.
func (d *samlIdP) GetServiceProvider(_ *http.Request, id string) (*saml.EntityDescriptor, error) {
	client := http.DefaultClient
	if d.client != nil {
		client = d.client
	}
	res, err := client.Get(id)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal(body, &ed); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.audience != "" {
		ed.EntityID = d.audience
	}
	if d.extraACS != "" && len(ed.SPSSODescriptors) > 0 {
		sp := &ed.SPSSODescriptors[0]
		sp.AssertionConsumerServices = append(sp.AssertionConsumerServices, saml.IndexedEndpoint{
			Binding: saml.HTTPPostBinding, Location: d.extraACS, Index: len(sp.AssertionConsumerServices) + 1})
	}
	return &ed, nil
}

// GetSession logs the configured user in without a form.
func (d *samlIdP) GetSession(http.ResponseWriter, *http.Request, *saml.IdpAuthnRequest) *saml.Session {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.user
	s.ID, s.CreateTime, s.ExpireTime, s.Index = "session-1", time.Now(), time.Now().Add(time.Hour), "1"
	return &s
}

func (d *samlIdP) login(email, nameID, given, sur string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.user = saml.Session{NameID: nameID, UserEmail: email, UserGivenName: given, UserSurname: sur,
		NameIDFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"}
}

var formField = regexp.MustCompile(`name="(SAMLResponse|RelayState)" value="([^"]*)"`)

// follow takes the browser from our start redirect through the IdP and
// returns the form it would post to our ACS.
func (d *samlIdP) follow(location string) (acs string, form url.Values) {
	d.t.Helper()
	res, err := http.Get(location)
	if err != nil {
		d.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		d.t.Fatalf("idp: %d %s", res.StatusCode, body)
	}
	form = url.Values{}
	for _, m := range formField.FindAllStringSubmatch(string(body), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	action := regexp.MustCompile(`action="([^"]*)"`).FindStringSubmatch(string(body))
	if action == nil || form.Get("SAMLResponse") == "" {
		d.t.Fatalf("idp: no response form: %s", body)
	}
	return html.UnescapeString(action[1]), form
}

// resign rewrites a response the IdP posted: edit changes the Response
// element, stripped of its signature, and the IdP signs the result again
// as crewjam does, so the response is one the IdP itself could have sent.
func (d *samlIdP) resign(encoded string, edit func(resp *etree.Element)) string {
	d.t.Helper()
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		d.t.Fatal(err)
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(raw); err != nil {
		d.t.Fatal(err)
	}
	resp := doc.Root()
	unsign(resp)
	edit(resp)
	doc.SetRoot(d.sign(resp))
	out, err := doc.WriteToBytes()
	if err != nil {
		d.t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(out)
}

// resignAssertion rewrites the (unencrypted) assertion of a response the
// IdP posted: edit changes the Assertion element, stripped of its
// signature, and the IdP signs the assertion and then the response again.
func (d *samlIdP) resignAssertion(encoded string, edit func(assertion *etree.Element)) string {
	d.t.Helper()
	return d.resign(encoded, func(resp *etree.Element) {
		for _, c := range resp.ChildElements() {
			if c.Tag == "Assertion" {
				i := c.Index()
				unsign(c)
				edit(c)
				resp.RemoveChildAt(i)
				resp.InsertChildAt(i, d.sign(c))
				return
			}
		}
		d.t.Fatal("no assertion in the response")
	})
}

func unsign(el *etree.Element) {
	for _, c := range el.ChildElements() {
		if c.Tag == "Signature" {
			el.RemoveChild(c)
		}
	}
}

// sign signs el (enveloped) with the IdP's key, as crewjam does.
func (d *samlIdP) sign(el *etree.Element) *etree.Element {
	d.t.Helper()
	ctx := dsig.NewDefaultSigningContext(dsig.TLSCertKeyStore(tls.Certificate{Certificate: [][]byte{d.cert.Raw}, PrivateKey: d.idp.Key}))
	ctx.Canonicalizer = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")
	method := dsig.RSASHA256SignatureMethod
	if d.signatureMethod != "" {
		method = d.signatureMethod
	}
	if err := ctx.SetSignatureMethod(method); err != nil {
		d.t.Fatal(err)
	}
	signed, err := ctx.SignEnveloped(el)
	if err != nil {
		d.t.Fatal(err)
	}
	return signed
}
