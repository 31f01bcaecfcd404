// Command samlidp is the SAML identity provider of the browser tests: the
// IdentityProvider of github.com/crewjam/saml, an implementation nobody on
// this team wrote, on a loopback port with a fresh key and certificate.
//
// It reads the service provider's metadata from the entity id (the metadata
// URL Latchkey serves, as an administrator would configure an IdP), shows a
// small sign-in page where the test types who logs in, and posts a signed
// response to the ACS. It prints one JSON line on stdout when it is ready:
// base URL, entity id, SSO URL and certificate (PEM). It stops on SIGTERM or
// SIGINT.
//
// POST /control with {"audience": "..."} makes it believe another entity id
// for the service provider (a wrong-audience assertion); an empty value
// restores the real one.
package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"encoding/xml"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	flag.Parse()
	if err := run(*addr); err != nil {
		log.Fatal(err)
	}
}

func run(addr string) error {
	key, cert, err := selfSigned()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	p := &provider{}
	idp := &saml.IdentityProvider{
		Key: key, Certificate: cert, Logger: log.New(os.Stderr, "samlidp ", log.LstdFlags),
		MetadataURL:             *base.ResolveReference(&url.URL{Path: "/metadata"}),
		SSOURL:                  *base.ResolveReference(&url.URL{Path: "/sso"}),
		ServiceProviderProvider: p, SessionProvider: p, SignatureMethod: dsig.RSASHA256SignatureMethod,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metadata", idp.ServeMetadata)
	mux.HandleFunc("/sso", idp.ServeSSO)
	mux.HandleFunc("POST /control", p.control)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	ready, _ := json.Marshal(map[string]string{
		"base": base.String(), "entity_id": idp.MetadataURL.String(), "sso_url": idp.SSOURL.String(),
		"certificate": string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})),
	})
	fmt.Println(string(ready))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}

// selfSigned makes the IdP's signing key and a certificate valid for a day.
func selfSigned() (*rsa.PrivateKey, *x509.Certificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "e2e crewjam idp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, err
}

// provider finds service providers by their metadata URL and signs people
// in from the sign-in page's fields.
type provider struct {
	mu       sync.Mutex
	audience string
}

func (p *provider) control(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Audience string `json:"audience"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.audience = req.Audience
	p.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// GetServiceProvider fetches the service provider's metadata from its
// entity id.
func (p *provider) GetServiceProvider(r *http.Request, id string) (*saml.EntityDescriptor, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, id, nil)
	if err != nil {
		return nil, os.ErrNotExist
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metadata %s: %w", id, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil || res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metadata %s: status %d: %v", id, res.StatusCode, err)
	}
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal(body, &ed); err != nil {
		return nil, fmt.Errorf("metadata %s: %w", id, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.audience != "" {
		ed.EntityID = p.audience
	}
	return &ed, nil
}

var signInPage = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>E2E IdP sign-in</title></head>
<body><main><h1>Sign in to the E2E IdP</h1>
<form method="get" action="/sso">
<input type="hidden" name="SAMLRequest" value="{{.SAMLRequest}}">
<input type="hidden" name="RelayState" value="{{.RelayState}}">
<p><label for="email">Email</label> <input id="email" name="email" type="email" required></p>
<p><label for="name_id">User ID</label> <input id="name_id" name="name_id"></p>
<p><label for="given_name">First name</label> <input id="given_name" name="given_name"></p>
<p><label for="surname">Last name</label> <input id="surname" name="surname"></p>
<p><button type="submit">Sign in</button></p>
</form></main></body></html>
`))

// GetSession signs in whoever the page's fields name; without them it shows
// the page, which sends the same request back with the fields added.
func (p *provider) GetSession(w http.ResponseWriter, r *http.Request, _ *saml.IdpAuthnRequest) *saml.Session {
	q := r.URL.Query()
	email := q.Get("email")
	if r.Method != http.MethodGet || email == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = signInPage.Execute(w, map[string]string{"SAMLRequest": q.Get("SAMLRequest"), "RelayState": q.Get("RelayState")})
		return nil
	}
	nameID := q.Get("name_id")
	if nameID == "" {
		nameID = email
	}
	now := time.Now()
	return &saml.Session{ID: fmt.Sprintf("session-%d", now.UnixNano()), CreateTime: now, ExpireTime: now.Add(time.Hour),
		Index: "1", NameID: nameID, NameIDFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
		UserEmail: email, UserGivenName: q.Get("given_name"), UserSurname: q.Get("surname")}
}
