package sso

import (
	"encoding/base64"
	"encoding/xml"
	"html/template"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/russellhaering/gosaml2/types"
	dsigtypes "github.com/russellhaering/goxmldsig/types"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// errorTmpl parses on first use: most servers never show it, and a
// template parsed at package load is heap every process keeps at idle.
var errorTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Single sign-on failed</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2933}
code{background:#eef1f4;padding:.1rem .3rem;border-radius:3px}</style></head>
<body><main><h1>Single sign-on failed</h1>
<p>{{.Message}}</p>
<p>Error <code data-error-type="{{.Type}}">{{.Type}}</code> (HTTP {{.Status}}), request <code>{{.RequestID}}</code>.</p>
<p>Go back to the application and start the login again. If it keeps failing, contact your administrator with the error above.</p>
</main></body></html>
`))
})

// errorPage answers a failed browser step with a page naming the catalogue
// error (the browser is mid-navigation: JSON would strand the person), and
// logs the hidden cause as the API faces do.
func (s *Service) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	e := httpapi.PublicError(err)
	attrs := []any{"request_id", httpapi.RequestID(r.Context()), "error_type", string(e.Type), "status", e.Status}
	if c := e.Cause(); c != nil {
		attrs = append(attrs, "cause", c.Error())
	}
	level := slog.LevelInfo
	if e.Status >= 500 {
		level = slog.LevelError
	}
	s.log().Log(r.Context(), level, "sso browser step failed", attrs...)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// The house page policy: no inline script (the page has none), no
	// outside resources, no framing (a login error page has no business
	// in someone else's frame).
	httpapi.SetPageCSP(w, httpapi.CSP{InlineStyles: true})
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Latchkey-Error-Type", string(e.Type))
	w.WriteHeader(e.Status)
	_ = errorTmpl().Execute(w, map[string]any{"Message": e.Message, "Type": string(e.Type), "Status": e.Status,
		"RequestID": httpapi.RequestID(r.Context())})
}

func (s *Service) log() *slog.Logger {
	if s.d.Log != nil {
		return s.d.Log
	}
	return slog.Default()
}

// serveMetadata serves a SAML connection's service-provider metadata at
// its entity id (the audience URI): entity id, ACS (HTTP-POST), signing
// and encryption certificates.
func (s *Service) serveMetadata(w http.ResponseWriter, r *http.Request) {
	c, err := s.loadAny(r.Context(), "", r.PathValue("connection_id"))
	if err == nil && c.Kind != KindSAML {
		err = apierr.New(apierr.SSOConnectionNotFound)
	}
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	md := spMetadata(c, s.d.BaseURL(), s.d.Clock.Now())
	body, err := xml.MarshalIndent(md, "", "  ")
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/samlmetadata+xml")
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(body)
}

// spMetadata describes the service provider side of a connection. It is
// built here rather than by gosaml2, whose Metadata insists on an
// encryption key that most connections do not have.
func spMetadata(c *conn, base string, now time.Time) *types.EntityDescriptor {
	cfg := c.SAML
	var kds []types.KeyDescriptor
	add := func(use string, keys []storedKey) {
		for i := len(keys) - 1; i >= 0; i-- {
			cert, _, err := parseCertificate(keys[i].PEM)
			if err != nil {
				continue
			}
			kd := types.KeyDescriptor{Use: use, KeyInfo: dsigtypes.KeyInfo{X509Data: dsigtypes.X509Data{
				X509Certificates: []dsigtypes.X509Certificate{{Data: base64.StdEncoding.EncodeToString(cert.Raw)}}}}}
			if use == "encryption" {
				kd.EncryptionMethods = []types.EncryptionMethod{{Algorithm: types.MethodAES128CBC}, {Algorithm: types.MethodAES256CBC},
					{Algorithm: types.MethodAES128GCM}, {Algorithm: types.MethodAES256GCM}}
			}
			kds = append(kds, kd)
		}
	}
	// A connection signs with its newest signing key only (an upload
	// replaces the key), so only that certificate is listed. Every
	// encryption key decrypts until it is deleted, so every one is listed,
	// newest first: identity providers that take the first encryption
	// certificate move to the new key, and ones still holding the previous
	// certificate find it listed too.
	signing := cfg.SigningKeys
	if n := len(signing); n > 1 {
		signing = signing[n-1:]
	}
	add("signing", signing)
	add("encryption", cfg.EncryptionKeys)
	return &types.EntityDescriptor{ValidUntil: now.Add(7 * 24 * time.Hour).UTC(), EntityID: metadataURL(base, c.ID),
		SPSSODescriptor: &types.SPSSODescriptor{AuthnRequestsSigned: false, WantAssertionsSigned: true,
			ProtocolSupportEnumeration: "urn:oasis:names:tc:SAML:2.0:protocol", KeyDescriptors: kds,
			AssertionConsumerServices: []types.IndexedEndpoint{{Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST",
				Location: acsURL(base, c.ID), Index: 1}}}}
}
