package idp

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// loggedOutPath is the provider's own page after a logout that named no
// post_logout_redirect_uri, under the issuer.
const loggedOutPath = "/oauth2/logged_out"

// loggedOutPage is static: nothing of the request is shown, so there is
// nothing to escape, and no script, so the page policy allows none
// beyond the default.
const loggedOutPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Logged out</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2933}</style></head>
<body><main><h1>Logged out</h1>
<p>You have been logged out. You may close this page.</p>
</main></body></html>
`

// loggedOutURL is the logged-out page of a project: end_session's
// post_logout_redirect_uri when the relying party named none, which
// logout/start accepts for every client of the project.
func (p *Provider) loggedOutURL(projectID string) string {
	return p.Issuer(projectID) + loggedOutPath
}

// LoggedOut handles GET {issuer}/oauth2/logged_out, the page a logout
// without a post_logout_redirect_uri ends on. The widget's state query
// parameter, if any, is ignored.
func (p *Provider) LoggedOut(w http.ResponseWriter, r *http.Request) {
	if _, err := p.projectOf(r); err != nil {
		writeOAuth(w, r, 0, nil, p.logged(r, err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// The house page policy (as the SSO pages): no inline script, no
	// outside resources, no framing.
	httpapi.SetPageCSP(w, httpapi.CSP{InlineStyles: true})
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(loggedOutPage))
}
