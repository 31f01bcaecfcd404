package providers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// A token endpoint's refusal may quote what it was sent: a body that is
// not OAuth's error JSON (x/oauth2 then prints the whole body in its
// error), or an error_description naming the code or refresh token. The
// error, which the oauth package logs as the cause of a refused callback
// or a failed refresh, keeps the status and the OAuth error code and holds
// none of the code, verifier, refresh token, client secret or the tokens
// of a malformed answer.
func TestTokenEndpointErrorsHoldNoSecret(t *testing.T) {
	t.Parallel()
	const (
		code     = "code-sent-0123456789"
		verifier = "verifier-sent-0123456789-0123456789-0123"
		refresh  = "refresh-sent-0123456789"
		secret   = "client-secret-0123456789"
		access   = "access-answered-0123456789"
	)
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		keep                    string // what the error must still say
	}{
		{"echoed html", "text/html", "<p>bad grant for " + code + refresh + " by " + secret + " " + verifier + "</p>", 400, "400"},
		{"echoed json without error", "application/json", `{"message":"refresh token ` + refresh + ` and code ` + code + ` revoked"}`, 401, "401"},
		{"error_description", "application/json", `{"error":"invalid_grant","error_description":"code ` + code +
			` / refresh token ` + refresh + ` / verifier ` + verifier + ` unknown"}`, 400, "invalid_grant"},
		{"error on a 200 with tokens", "application/json", `{"error":"server_error","error_description":"half-issued ` + access +
			`","access_token":"` + access + `"}`, 200, "server_error"},
		{"form error", "application/x-www-form-urlencoded", "error=invalid_grant&error_description=" + refresh, 400, "invalid_grant"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.contentType)
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(tc.body))
		}))
		p, err := providers.NewFactory(nil).New(context.Background(), providers.GitHub, providers.Config{ClientID: "cid",
			ClientSecret: secret, AuthorizeURL: srv.URL + "/authorize", TokenURL: srv.URL + "/token", APIURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, exErr := p.Exchange(context.Background(), code, providers.AuthRequest{State: "s", RedirectURI: "http://127.0.0.1/cb",
			Verifier: verifier})
		_, rfErr := p.Refresh(context.Background(), refresh)
		srv.Close()
		for what, err := range map[string]error{"exchange": exErr, "refresh": rfErr} {
			if err == nil {
				t.Errorf("%s, %s: no error", tc.name, what)
				continue
			}
			for _, s := range []string{code, verifier, refresh, secret, access} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("%s, %s: the error holds %q: %v", tc.name, what, s[:8], err)
				}
			}
			if !strings.Contains(err.Error(), tc.keep) {
				t.Errorf("%s, %s: the error lost %q: %v", tc.name, what, tc.keep, err)
			}
		}
	}
}
