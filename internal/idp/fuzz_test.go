package idp

import (
	"encoding/base64"
	"encoding/json"
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

// FuzzTokenBody reads arbitrary token endpoint bodies as JSON (the
// vendor's reference) and as a form. Properties: a refusal is an RFC 6749
// 4xx (or the catalogue's, for a body over the limit); a JSON body is
// accepted only when it is one JSON object of string values, read exactly
// as encoding/json reads it, holding no NUL (a key given twice, which
// encoding/json would take the last of, is refused by the unit tests'
// account); a form only with each parameter once, read as url.ParseQuery
// reads it.
func FuzzTokenBody(f *testing.F) {
	for _, body := range []string{
		`{"grant_type":"authorization_code","code":"c","client_id":"connected-app-test-1","client_secret":"s","code_verifier":"v"}`,
		`{"grant_type":"refresh_token","refresh_token":"r","grant_type":"client_credentials"}`,
		`{"a":1}`, `{"a":"\u0000"}`, `{"a":"b"} {}`, `{"a":"b",}`, `["a"]`, `{"a":"\ud800"}`, `{"\u0061":"x","a":"y"}`,
		"grant_type=client_credentials&scope=read%20write", "a=1&a=2", "a=%zz", "a;b=c",
	} {
		f.Add(true, []byte(body))
		f.Add(false, []byte(body))
	}
	f.Fuzz(func(t *testing.T, asJSON bool, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/oauth2/token", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", map[bool]string{true: "application/json; charset=utf-8", false: "application/x-www-form-urlencoded"}[asJSON])
		err := parseTokenBody(r)
		if err != nil {
			var oe *oauthError
			if !errors.As(err, &oe) || oe.status < 400 || oe.status > 499 {
				t.Fatalf("parseTokenBody(%q): %v is not an RFC 6749 4xx", body, err)
			}
			return
		}
		want := map[string]string{}
		if asJSON {
			if uerr := json.Unmarshal(body, &want); uerr != nil {
				t.Fatalf("parseTokenBody accepted %q, which encoding/json refuses as an object of strings: %v", body, uerr)
			}
			if len(r.PostForm) != len(want) {
				t.Fatalf("parseTokenBody(%q) = %v, encoding/json reads %v", body, r.PostForm, want)
			}
		} else {
			q, qerr := url.ParseQuery(string(body))
			if qerr != nil {
				t.Fatalf("parseTokenBody accepted the form %q, which url.ParseQuery refuses: %v", body, qerr)
			}
			for k, vs := range q {
				want[k] = vs[0]
				if len(vs) != 1 {
					t.Fatalf("parseTokenBody accepted %q with %s given %d times", body, k, len(vs))
				}
			}
		}
		for k, v := range want {
			if got := r.PostForm[k]; len(got) != 1 || got[0] != v || (asJSON && (!httpapi.Clean(k) || !httpapi.Clean(v))) {
				t.Fatalf("parseTokenBody(%q): %s is %q, want %q once", body, k, got, v)
			}
		}
	})
}
