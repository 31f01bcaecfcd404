package devmode

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/latchkey/latchkey/internal/ids"
)

// approval is what a person chose on a dev provider's pick page (the OAuth
// mocks and the dev OIDC IdP share one protocol for it).
type approval struct {
	form     url.Values
	redirect string
	email    string
	back     url.Values
}

// readApproval reads a pick page's form. The client and redirect URI must
// be the registered ones; Deny goes back to the client with access_denied;
// otherwise an email is required. When it has answered the browser itself
// it returns false.
func readApproval(w http.ResponseWriter, r *http.Request, who string, registered func(clientID, redirect string) bool) (*approval, bool) {
	if r.ParseForm() != nil {
		http.Error(w, who+": bad form", http.StatusBadRequest)
		return nil, false
	}
	f := r.PostForm
	a := &approval{form: f, redirect: f.Get("redirect_uri"), back: url.Values{"state": {f.Get("state")}}}
	if !registered(f.Get("client_id"), a.redirect) {
		http.Error(w, who+": unknown client_id or unregistered redirect_uri", http.StatusBadRequest)
		return nil, false
	}
	if f.Get("deny") != "" {
		a.back.Set("error", "access_denied")
		http.Redirect(w, r, a.redirect+"?"+a.back.Encode(), http.StatusFound)
		return nil, false
	}
	if a.email = strings.ToLower(strings.TrimSpace(f.Get("email"))); a.email == "" {
		http.Error(w, who+": an email is required", http.StatusBadRequest)
		return nil, false
	}
	return a, true
}

// field is a trimmed form field.
func (a *approval) field(name string) string { return strings.TrimSpace(a.form.Get(name)) }

// grant sends the browser back to the client with a new code, which save
// records first.
func (a *approval) grant(w http.ResponseWriter, r *http.Request, save func(code string)) {
	code := ids.Token()
	save(code)
	a.back.Set("code", code)
	http.Redirect(w, r, a.redirect+"?"+a.back.Encode(), http.StatusFound)
}

// clientCredentials reads a token request's client id and secret, from
// Basic auth or the form (client_secret_basic or client_secret_post).
func clientCredentials(r *http.Request) (id, secret string) {
	if id, secret, ok := r.BasicAuth(); ok {
		return id, secret
	}
	return r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
}
