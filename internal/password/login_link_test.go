package password_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// loginLink returns the "log in without password" link of the newest mail
// to an address (its second link), checked to land on page with the token
// type, or fails when the mail has none.
func loginLink(e *apptest.Env, to, page, tokenType string) string {
	e.T.Helper()
	links, _ := e.LastMail(to)
	if len(links) != 2 {
		e.T.Fatalf("want a reset link and a login link, got %v", links)
	}
	return apptest.LinkToken(e.T, links[1], page, tokenType)
}

// A reset email honours login_redirect_url as the API family does: its
// "log in without password" magic link lands on the requested (registered)
// URL and logs the member in with the password unchanged; an unregistered
// URL is refused before anything is sent. The discovery reset does the
// same with discovery_redirect_url.
func TestPasswordResetEmailLogsInWithoutPassword(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		other := apptest.Origin + "/welcome"
		if err := e.App.Projects.AddRedirectURL(context.Background(), e.Project.Project.ID, other,
			[]project.RedirectType{project.RedirectLogin, project.RedirectDiscovery}); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)

		apptest.Want(t, e.ResetStart(org, "ada@acme.test", map[string]any{"login_redirect_url": "http://evil.test/"}),
			400, "no_match_for_provided_magic_link_url")
		if r := e.ResetStart(org, "ada@acme.test", map[string]any{"login_redirect_url": other}); r.Status != 200 {
			t.Fatalf("reset start: %s", r.Raw)
		}
		token := loginLink(e, "ada@acme.test", other, "multi_tenant_magic_links")
		r := e.SDK(http.MethodPost, "/b2b/magic_links/authenticate", map[string]any{"magic_links_token": token, "session_duration_minutes": 60}, "")
		if r.Status != 200 || r.Data()["session_token"] == "" {
			t.Fatalf("login link: %s", r.Raw)
		}
		if r := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword); r.Status != 200 {
			t.Fatalf("the password changed: %s", r.Raw)
		}
		// Without the field, the project's default login URL.
		if r := e.ResetStart(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("reset start: %s", r.Raw)
		}
		loginLink(e, "ada@acme.test", apptest.Page, "multi_tenant_magic_links")

		// Discovery: discovery_redirect_url, and a discovery magic link.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": "ada@acme.test",
			"discovery_redirect_url": "http://evil.test/"}, ""), 400, "no_match_for_provided_magic_link_url")
		if r := e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": "ada@acme.test",
			"discovery_redirect_url": other}, ""); r.Status != 200 {
			t.Fatalf("discovery reset start: %s", r.Raw)
		}
		token = loginLink(e, "ada@acme.test", other, "discovery")
		r = e.SDK(http.MethodPost, "/b2b/magic_links/discovery/authenticate", map[string]any{"discovery_magic_links_token": token}, "")
		if r.Status != 200 || r.Data()["intermediate_session_token"] == "" {
			t.Fatalf("discovery login link: %s", r.Raw)
		}
		if r := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword); r.Status != 200 {
			t.Fatalf("the password changed: %s", r.Raw)
		}
	})
}
