package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/oidcuser"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/oauth2-proxy/mockoidc"
)

// editedUser is the shared shaped mockoidc user (oidcuser.User).
type editedUser = oidcuser.User

// startGoogle runs mockoidc (an OIDC provider we did not write) as the
// project's Google.
func startGoogle(t *testing.T, e *apptest.Env) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	configure(t, e, providers.Google, providers.Config{ClientID: m.ClientID, ClientSecret: m.ClientSecret, Issuer: m.Issuer()})
	return m
}

func configure(t *testing.T, e *apptest.Env, provider string, c providers.Config) {
	t.Helper()
	if err := e.App.OAuth.SaveConfig(context.Background(), oauth.ProviderConfig{ProjectID: e.Project.Project.ID,
		Provider: provider, Config: c}); err != nil {
		t.Fatal(err)
	}
}

// follow visits a URL without following redirects and returns Location.
func follow(t *testing.T, raw string) (int, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(raw)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

// browse runs the browser's part: start at Latchkey, visit the provider,
// come back to the callback; it returns the final redirect to the
// customer's page.
func browse(t *testing.T, e *apptest.Env, startPath string) *url.URL {
	t.Helper()
	r := e.Get(startPath)
	if r.Status != http.StatusFound {
		t.Fatalf("start: %d %s", r.Status, r.Raw)
	}
	status, cb := follow(t, r.Header.Get("Location"))
	if status != http.StatusFound || !strings.HasPrefix(cb, e.Srv.URL+"/v1/b2b/public/oauth/callback") {
		t.Fatalf("provider answered %d %q", status, cb)
	}
	r = e.Get(cb)
	if r.Status != http.StatusFound {
		t.Fatalf("callback: %d %s", r.Status, r.Raw)
	}
	u, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func startPath(e *apptest.Env, provider string, q url.Values) string {
	q.Set("public_token", e.Project.PublicToken)
	return "/v1/b2b/public/oauth/" + provider + "/start?" + q.Encode()
}

func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		mm, _ := cur.(map[string]any)
		cur = mm[p]
	}
	s, _ := cur.(string)
	return s
}
