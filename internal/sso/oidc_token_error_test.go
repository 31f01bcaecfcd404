package sso_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An identity provider's token endpoint that refuses the code with a body
// quoting what it was sent (the code, the client secret: x/oauth2 prints a
// non-OAuth error body whole) refuses the login with oidc_auth_code_error,
// and the logged cause keeps the status but none of what was sent.
func TestOIDCTokenRefusalLogsNoSecret(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		const secret = "idp-client-secret-0123456789"
		echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			_, pass, _ := r.BasicAuth()
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("<p>bad code " + r.Form.Get("code") + " for " + pass + r.Form.Get("client_secret") +
				" verifier " + r.Form.Get("code_verifier") + "</p>"))
		}))
		t.Cleanup(echo.Close)
		r := e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"token_url": echo.URL + "/token", "client_secret": secret})
		apptest.Want(t, r, 200, "")

		start := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
		r = s.Get("/v1/public/sso/start?" + start.Encode())
		s.op.QueueUser(nil)
		r = s.Get(r.Header.Get("Location"))
		back, _ := url.Parse(r.Header.Get("Location"))
		code := back.Query().Get("code")
		if code == "" {
			t.Fatalf("provider: %d %s", r.Status, r.Header.Get("Location"))
		}
		wantPage(t, s.Get(back.String()), 400, "oidc_auth_code_error")
		logs := e.Logs()
		if !strings.Contains(logs, "error_type=oidc_auth_code_error") || !strings.Contains(logs, "400") {
			t.Fatalf("the refusal's cause is not logged:\n%s", logs)
		}
		for name, v := range map[string]string{"code": code, "client secret": secret} {
			if strings.Contains(logs, v) {
				t.Errorf("the log holds the %s", name)
			}
		}
	})
}
