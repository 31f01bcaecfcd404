package devmode

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"encoding/xml"
	"html/template"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	_ "embed"

	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
)

// SAMLIdP is a built-in SAML 2.0 identity provider for dev mode only, so
// `make run` shows SAML SSO with no internet. It is crewjam/saml's
// IdentityProvider (an implementation this team did not write) behind a
// page where you pick or type the identity: the AuthnRequest (HTTP-Redirect
// binding) is validated when the page is shown, the person chooses, and the
// signed response is posted to the service provider's ACS. Its signing key
// is generated at first use and lives in memory, so the dev seed configures
// the demo connection with its certificate at every start.
//
// Tests of the SAML service provider do not use it: they run crewjam's
// provider directly. This checks nothing and trusts nothing; it only
// stands in for Okta on a laptop.
type SAMLIdP struct {
	base func() string
	// spMetadata reads a service provider's metadata by its entity id,
	// in process (the SSO module's connections).
	spMetadata func(ctx context.Context, entityID string) ([]byte, error)

	keyOnce sync.Once
	key     *rsa.PrivateKey
	cert    *x509.Certificate

	mu      sync.Mutex
	pending map[string]pendingSAML
}

// pendingSAML is a validated AuthnRequest waiting for the person's choice.
type pendingSAML struct {
	req     *saml.IdpAuthnRequest
	expires time.Time
}

// samlPendingTTL is how long the pick page stays usable.
const samlPendingTTL = 15 * time.Minute

// NewSAMLIdP returns the dev SAML identity provider; base is the server's
// URL and spMetadata looks service providers up by entity id.
func NewSAMLIdP(base func() string, spMetadata func(ctx context.Context, entityID string) ([]byte, error)) *SAMLIdP {
	return &SAMLIdP{base: base, spMetadata: spMetadata, pending: map[string]pendingSAML{}}
}

// EntityID is the identity provider's entity id (its metadata URL).
func (d *SAMLIdP) EntityID() string { return d.base() + "/dev/saml/metadata" }

// SSOURL is where service providers send their AuthnRequests.
func (d *SAMLIdP) SSOURL() string { return d.base() + "/dev/saml/sso" }

// CertificatePEM is the certificate service providers verify responses
// with.
func (d *SAMLIdP) CertificatePEM() string {
	d.keys()
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: d.cert.Raw}))
}

// SAMLAttributeMapping is the attribute_mapping a connection to this
// provider uses: the attributes it sends.
func SAMLAttributeMapping() map[string]any {
	return map[string]any{"email": "mail", "first_name": "givenName", "last_name": "sn", "groups": "groups"}
}

func (d *SAMLIdP) keys() {
	d.keyOnce.Do(func() {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		now := time.Now()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()),
			Subject:   pkix.Name{CommonName: "Latchkey dev SAML IdP"},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(5 * 365 * 24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(err) // a fresh template and key always make a certificate
		}
		d.key = key
		d.cert, _ = x509.ParseCertificate(der)
	})
}

// provider is crewjam's identity provider at the current base URL.
func (d *SAMLIdP) provider() *saml.IdentityProvider {
	d.keys()
	meta, _ := url.Parse(d.EntityID())
	sso, _ := url.Parse(d.SSOURL())
	return &saml.IdentityProvider{Key: d.key, Certificate: d.cert, Logger: log.New(io.Discard, "", 0),
		MetadataURL: *meta, SSOURL: *sso, ServiceProviderProvider: spLookup{d},
		SignatureMethod: dsig.RSASHA256SignatureMethod}
}

// spLookup is crewjam's view of the service providers.
type spLookup struct{ d *SAMLIdP }

func (l spLookup) GetServiceProvider(r *http.Request, id string) (*saml.EntityDescriptor, error) {
	body, err := l.d.spMetadata(r.Context(), id)
	if err != nil {
		return nil, err
	}
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal(body, &ed); err != nil {
		return nil, err
	}
	return &ed, nil
}

// Register mounts the provider on mux.
func (d *SAMLIdP) Register(mux interface {
	HandleFunc(string, func(http.ResponseWriter, *http.Request))
}) {
	mux.HandleFunc("GET /dev/saml/metadata", func(w http.ResponseWriter, r *http.Request) { d.provider().ServeMetadata(w, r) })
	mux.HandleFunc("GET /dev/saml/sso", d.page)
	mux.HandleFunc("POST /dev/saml/sso", d.approve)
}

// Suggested identities on the SAML page: the SSO demo organization's
// people (Peter exists; Joanna joins by SSO JIT provisioning).
var samlPeople = []idpPerson{
	{Email: "peter@initech.test", First: "Peter", Last: "Gibbons", Groups: "engineering"},
	{Email: "joanna@initech.test", First: "Joanna", Last: "Smith", Groups: "admins, engineering"},
}

type idpPerson struct {
	Email, First, Last, Groups string
}

func (p idpPerson) Name() string { return strings.TrimSpace(p.First + " " + p.Last) }

// page validates the AuthnRequest and shows the pick page.
func (d *SAMLIdP) page(w http.ResponseWriter, r *http.Request) {
	idp := d.provider()
	req, err := saml.NewIdpAuthnRequest(idp, r)
	if err == nil {
		err = req.Validate()
	}
	if err != nil {
		http.Error(w, "dev SAML IdP: invalid AuthnRequest: "+err.Error(), http.StatusBadRequest)
		return
	}
	ticket := ids.Token()
	now := time.Now()
	d.mu.Lock()
	for k, p := range d.pending {
		if now.After(p.expires) {
			delete(d.pending, k)
		}
	}
	d.pending[ticket] = pendingSAML{req: req, expires: now.Add(samlPendingTTL)}
	d.mu.Unlock()
	renderIdPPage(w, idpPageView{Title: "Dev SAML identity provider", Intro: "Dev mode stands in for your company's SAML " +
		"identity provider (" + req.ServiceProviderMetadata.EntityID + " asked). Pick a person or type an identity; " +
		"the signed assertion goes straight back to Latchkey.", Hidden: map[string]string{"ticket": ticket},
		People: samlPeople, Groups: true})
}

// approve answers the pending request for the chosen identity with a
// signed response, auto-posted to the ACS.
func (d *SAMLIdP) approve(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() != nil {
		http.Error(w, "dev SAML IdP: bad form", http.StatusBadRequest)
		return
	}
	f := r.PostForm
	d.mu.Lock()
	p, ok := d.pending[f.Get("ticket")]
	delete(d.pending, f.Get("ticket"))
	d.mu.Unlock()
	if !ok || time.Now().After(p.expires) {
		http.Error(w, "dev SAML IdP: this login expired or was used; start again from the application", http.StatusBadRequest)
		return
	}
	email := strings.ToLower(strings.TrimSpace(f.Get("email")))
	if email == "" {
		http.Error(w, "dev SAML IdP: an email is required", http.StatusBadRequest)
		return
	}
	req := p.req
	req.HTTPRequest, req.Now = r, time.Now()
	first, last := strings.TrimSpace(f.Get("first_name")), strings.TrimSpace(f.Get("last_name"))
	session := &saml.Session{ID: ids.Token(), CreateTime: req.Now, ExpireTime: req.Now.Add(time.Hour), Index: "1",
		// A stable subject per address, as directories use an immutable id.
		NameID: "dev-" + ids.Hash(email)[:16], NameIDFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
		UserEmail: email, UserGivenName: first, UserSurname: last, UserCommonName: strings.TrimSpace(first + " " + last)}
	if groups := splitList(f.Get("groups")); len(groups) > 0 {
		vals := make([]saml.AttributeValue, 0, len(groups))
		for _, g := range groups {
			vals = append(vals, saml.AttributeValue{Type: "xs:string", Value: g})
		}
		session.CustomAttributes = []saml.Attribute{{FriendlyName: "groups", Name: "groups",
			NameFormat: "urn:oasis:names:tc:SAML:2.0:attrname-format:basic", Values: vals}}
	}
	if err := (saml.DefaultAssertionMaker{}).MakeAssertion(req, session); err != nil {
		http.Error(w, "dev SAML IdP: "+err.Error(), http.StatusInternalServerError)
		return
	}
	form, err := req.PostBinding()
	if err != nil {
		http.Error(w, "dev SAML IdP: "+err.Error(), http.StatusInternalServerError)
		return
	}
	nonce := httpapi.NewNonce()
	var buf bytes.Buffer
	if err := postTemplate().Execute(&buf, map[string]any{"Form": form, "Nonce": nonce}); err != nil {
		http.Error(w, "render failed", http.StatusInternalServerError)
		return
	}
	httpapi.SetPageCSP(w, httpapi.CSP{Nonce: nonce, InlineStyles: true, FormAction: originOf(form.URL)})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// postTemplate is the HTTP-POST binding: a form to the ACS that submits
// itself (its script runs by the page's nonce), with a button for
// browsers without script. Parsed on first use, like demoTemplate.
var postTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("samlpost").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signing in · Latchkey dev</title></head>
<body><form method="post" action="{{.Form.URL}}" id="saml-post">
<input type="hidden" name="SAMLResponse" value="{{.Form.SAMLResponse}}">
<input type="hidden" name="RelayState" value="{{.Form.RelayState}}">
<noscript><button type="submit">Continue</button></noscript>
</form>
<script nonce="{{.Nonce}}">document.getElementById("saml-post").submit();</script>
</body></html>
`))
})

//go:embed idp.html.tmpl
var idpPageHTML string

// Parsed on first use, like demoTemplate.
var idpPage = sync.OnceValue(func() *template.Template { return template.Must(template.New("idp").Parse(idpPageHTML)) })

// idpPageView is the pick page of the dev SAML and OIDC providers.
type idpPageView struct {
	Title, Intro string
	Hidden       map[string]string
	People       []idpPerson
	Groups       bool // the SAML provider sends groups
	Deny         bool // the OIDC provider can answer access_denied
	Hint         string
	Nonce        string
}

func renderIdPPage(w http.ResponseWriter, v idpPageView) {
	v.Nonce = httpapi.NewNonce()
	var buf bytes.Buffer
	if err := idpPage().Execute(&buf, v); err != nil {
		http.Error(w, "render failed", http.StatusInternalServerError)
		return
	}
	httpapi.SetPageCSP(w, httpapi.CSP{Nonce: v.Nonce, InlineStyles: true})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}
