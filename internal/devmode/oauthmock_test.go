package devmode_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/devmode"
)

// The dev mock providers must work end to end, or `make run` shows OAuth
// buttons that fail. (Interop is proven against independent providers in
// internal/oauth and e2e; this checks the mock itself.)
func TestOAuthMockProviders(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if err := devmode.SeedOAuth(context.Background(), e.App.OAuth, e.Project.Project.ID, e.Srv.URL); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("globex", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"globex.test"},
			"oauth_tenant_jit_provisioning": "RESTRICTED", "allowed_oauth_tenants": map[string]any{"google": []string{"globex.test"}}})
		for _, p := range []string{"google", "microsoft", "github", "slack", "hubspot"} {
			r := e.Get("/v1/b2b/public/oauth/" + p + "/start?" + url.Values{"public_token": {e.Project.PublicToken},
				"organization_id": {org}}.Encode())
			if r.Status != http.StatusFound {
				t.Fatalf("%s start: %d %s", p, r.Status, r.Raw)
			}
			page, err := url.Parse(r.Header.Get("Location"))
			if err != nil || !strings.HasPrefix(page.String(), e.Srv.URL+"/dev/oauth/"+p+"/authorize") {
				t.Fatalf("%s: start went to %s", p, page)
			}
			res, err := http.Get(page.String())
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !strings.Contains(string(body), "Continue as") {
				t.Fatalf("%s page: %d", p, res.StatusCode)
			}
			form := page.Query()
			form.Set("email", p+"@contractor.test") // a new person each time
			form.Set("name", "Pat")
			form.Set("tenant", "globex.test")
			r = e.Do(http.MethodPost, page.Path, form.Encode(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, "", "")
			if r.Status != http.StatusFound {
				t.Fatalf("%s approve: %d %s", p, r.Status, r.Raw)
			}
			r = e.Get(r.Header.Get("Location"))
			if r.Status != http.StatusFound {
				t.Fatalf("%s callback: %d %s", p, r.Status, r.Raw)
			}
			back, _ := url.Parse(r.Header.Get("Location"))
			r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": back.Query().Get("token")}, "")
			want := 403 // only Google's tenant is allowed, and the address is outside globex.test
			if p == "google" {
				want = 200
			}
			if r.Status != want {
				t.Fatalf("%s authenticate: %d %s", p, r.Status, r.ErrType())
			}
		}
	})
}
