package idp

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// FuzzClientCredentials feeds the token endpoints' client authentication
// (client_secret_basic, whose parts are form-encoded, and
// client_secret_post) arbitrary headers and forms: it never panics, a
// refusal is an RFC 6749 error, and the client id and secret it returns
// are text the database accepts (no NUL, valid UTF-8).
func FuzzClientCredentials(f *testing.F) {
	b := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	f.Add(b("connected-app-test-1:s3cret"), "")
	f.Add(b("a%00b:%ff"), "")
	f.Add(b("a%zz:b"), "")
	f.Add(b("x:y"), "client_secret=z")
	f.Add(b("x:y"), "client_id=other")
	f.Add("", "client_id=%00&client_secret=%c0%af")
	f.Add("Basic ###", "client_id=a&client_id=b")
	f.Fuzz(func(t *testing.T, authorization, form string) {
		r := httptest.NewRequest(http.MethodPost, "/oauth2/token", strings.NewReader(form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if authorization != "" {
			r.Header["Authorization"] = []string{authorization}
		}
		if err := r.ParseForm(); err != nil {
			return
		}
		if _, err := url.ParseQuery(form); err != nil {
			return
		}
		// The edge refuses NUL and invalid UTF-8 in the form itself (see
		// httpapi.WithCleanInput); what is left is this function's job.
		for _, vs := range r.PostForm {
			for _, v := range vs {
				if !httpapi.Clean(v) {
					return
				}
			}
		}
		id, secret, err := clientCredentials(r)
		if err != nil {
			var oe *oauthError
			if !errors.As(err, &oe) || oe.status < 400 || oe.status > 499 {
				t.Fatalf("clientCredentials: %v is not an RFC 6749 4xx", err)
			}
			return
		}
		if !httpapi.Clean(id) || !httpapi.Clean(secret) {
			t.Fatalf("clientCredentials returned %q, %q", id, secret)
		}
	})
}
