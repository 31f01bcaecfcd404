package httpapi

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// Default Content-Security-Policy values, set when a response names none.
const (
	// APICSP suits JSON, redirects and files: nothing on the response may
	// load or run anything, and no page may frame it.
	APICSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
	// HTMLBaselineCSP is the floor for an HTML page that sets no policy of
	// its own: no framing (clickjacking), no <base> or plugin injection.
	// Pages should set a full policy with PageCSP; this only keeps one that
	// forgot from being framed.
	HTMLBaselineCSP = "frame-ancestors 'none'; object-src 'none'; base-uri 'none'"
)

// CSP describes a page's Content-Security-Policy. The zero value allows
// same-origin scripts, styles, images and fetches, no inline script, no
// framing by anyone, and forms that post only to this origin.
type CSP struct {
	// Nonce, when set, allows inline <script nonce="..."> elements
	// carrying it (see NewNonce). Prefer it to hashes for templates.
	Nonce string
	// ScriptHashes allow specific inline scripts ('sha256-...').
	ScriptHashes []string
	// InlineStyles allows <style> elements and style attributes.
	InlineStyles bool
	// FormAction lists extra form targets (an SSO auto-post form's ACS
	// URL, an IdP's consent endpoint), beyond 'self'.
	FormAction []string
	// ConnectSrc, ImgSrc and FrameSrc list extra origins for fetches,
	// images and child frames.
	ConnectSrc, ImgSrc, FrameSrc []string
	// FrameAncestors lists origins allowed to frame the page; empty means
	// none.
	FrameAncestors []string
}

// String renders the policy.
func (c CSP) String() string {
	script := []string{"'self'"}
	if c.Nonce != "" {
		script = append(script, "'nonce-"+c.Nonce+"'")
	}
	for _, h := range c.ScriptHashes {
		script = append(script, "'"+strings.Trim(h, "'")+"'")
	}
	style := []string{"'self'"}
	if c.InlineStyles {
		style = append(style, "'unsafe-inline'")
	}
	list := func(base []string, more []string) string { return strings.Join(append(base, more...), " ") }
	ancestors := "'none'"
	if len(c.FrameAncestors) > 0 {
		ancestors = strings.Join(c.FrameAncestors, " ")
	}
	frames := "'none'"
	if len(c.FrameSrc) > 0 {
		frames = strings.Join(c.FrameSrc, " ")
	}
	return "default-src 'self'; script-src " + strings.Join(script, " ") + "; style-src " + strings.Join(style, " ") +
		"; img-src " + list([]string{"'self'", "data:"}, c.ImgSrc) + "; connect-src " + list([]string{"'self'"}, c.ConnectSrc) +
		"; frame-src " + frames + "; form-action " + list([]string{"'self'"}, c.FormAction) +
		"; frame-ancestors " + ancestors + "; object-src 'none'; base-uri 'none'"
}

// NewNonce returns a fresh random nonce for one response's CSP.
func NewNonce() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// SetPageCSP sets an HTML page's policy; WithSecurityHeaders then leaves
// it alone. Call it before writing the body.
func SetPageCSP(w http.ResponseWriter, c CSP) {
	w.Header().Set("Content-Security-Policy", c.String())
	if len(c.FrameAncestors) > 0 {
		w.Header().Del("X-Frame-Options") // frame-ancestors governs; XFO cannot name origins
	}
}

// The constant header values, shared by every response (see jsonContentType).
var (
	nosniff         = []string{"nosniff"}
	noReferrer      = []string{"no-referrer"}
	hsts            = []string{"max-age=31536000"}
	apiCSP          = []string{APICSP}
	htmlBaselineCSP = []string{HTMLBaselineCSP}
)

// HTTPSBase reports whether base, the server's public URL, is https: the
// one decision behind HSTS and every cookie's Secure attribute. The scheme
// is read as url.Parse reads it, case-insensitively, because that is how
// the configuration accepted the URL: a prefix test would take
// HTTPS://auth.example.com for plain http and drop both.
func HTTPSBase(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Scheme == "https"
}

// WithSecurityHeaders sets the headers every response carries: nosniff, no
// referrer (URLs here carry one-time tokens), HSTS when the server is
// served over https, and, unless the handler set its own, a CSP chosen by
// the response's content type (APICSP, or HTMLBaselineCSP plus
// X-Frame-Options for HTML).
func WithSecurityHeaders(https bool) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h["X-Content-Type-Options"] = nosniff
			h["Referrer-Policy"] = noReferrer
			if https {
				h["Strict-Transport-Security"] = hsts
			}
			next.ServeHTTP(&headerWriter{ResponseWriter: w}, r)
		})
	}
}

// headerWriter fills in the content-type dependent headers just before
// the handler's headers go out.
type headerWriter struct {
	http.ResponseWriter
	done bool
}

func (hw *headerWriter) fill() {
	if hw.done {
		return
	}
	hw.done = true
	h := hw.Header()
	html := strings.HasPrefix(h.Get("Content-Type"), "text/html")
	if h.Get("Content-Security-Policy") == "" {
		if html {
			h["Content-Security-Policy"] = htmlBaselineCSP
		} else {
			h["Content-Security-Policy"] = apiCSP
		}
	}
	if csp := h.Get("Content-Security-Policy"); html && h.Get("X-Frame-Options") == "" &&
		(!strings.Contains(csp, "frame-ancestors") || strings.Contains(csp, "frame-ancestors 'none'")) {
		h.Set("X-Frame-Options", "DENY")
	}
}

func (hw *headerWriter) WriteHeader(code int) {
	hw.fill()
	hw.ResponseWriter.WriteHeader(code)
}

func (hw *headerWriter) Write(b []byte) (int, error) {
	if !hw.done && hw.Header().Get("Content-Type") == "" {
		hw.Header().Set("Content-Type", http.DetectContentType(b))
	}
	hw.fill()
	return hw.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (hw *headerWriter) Unwrap() http.ResponseWriter { return hw.ResponseWriter }

// FlushError passes flushes through to the connection. The writer below
// may be another wrapper (the Recorder) that is not itself a Flusher, so
// this goes through ResponseController, which unwraps.
func (hw *headerWriter) FlushError() error {
	hw.fill()
	return http.NewResponseController(hw.ResponseWriter).Flush()
}

// Flush is FlushError for callers that use http.Flusher.
func (hw *headerWriter) Flush() { _ = hw.FlushError() }
