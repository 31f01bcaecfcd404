package app_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// A redirect URL is registered for redirect types, and each flow may only
// send people to a URL registered for its own type: a page registered for
// password resets alone is no login, signup or discovery redirect, even
// though it is a registered URL of the project.
func TestRedirectURLsMatchTheirType(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		resetPage := apptest.Origin + "/reset"
		if err := e.App.Projects.AddRedirectURL(t.Context(), e.Project.Project.ID, resetPage,
			[]project.RedirectType{project.RedirectResetPassword}); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)

		apptest.Want(t, e.SendLink(org, "ada@acme.test", map[string]any{"login_redirect_url": resetPage}), 400, "no_match_for_provided_magic_link_url")
		apptest.Want(t, e.SendLink(org, "new@acme.test", map[string]any{"signup_redirect_url": resetPage}), 400, "no_match_for_provided_magic_link_url")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", map[string]any{"email_address": "ada@acme.test",
			"discovery_redirect_url": resetPage}, ""), 400, "no_match_for_provided_magic_link_url")

		// The page is a redirect of its own type.
		if r := e.ResetStart(org, "ada@acme.test", map[string]any{"reset_password_redirect_url": resetPage}); r.Status != 200 {
			t.Fatalf("reset start to the reset page: %s", r.Raw)
		}
		if links, _ := e.LastMail("ada@acme.test"); !strings.HasPrefix(links[0], resetPage+"?") {
			t.Fatalf("reset link %q does not go to %s", links[0], resetPage)
		}
	})
}

// A project without a redirect URL of the type a flow needs is refused with
// that type's own error, as the API family names them, whatever URLs the
// other types have: a password reset needs a reset_password URL (and gets
// no_password_reset_redirect_url, not no_login_redirect_urls_set while
// login URLs exist), a discovery email a discovery URL, an invite an
// invite URL. The "log in without password" link of a reset email is
// optional: without a login or discovery URL the email goes without it.
func TestRedirectTypeWithoutURLs(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, id := t.Context(), e.Project.Project.ID
		remove := func(types ...project.RedirectType) {
			t.Helper()
			if err := e.App.Projects.RemoveRedirectURL(ctx, id, apptest.Page, types); err != nil {
				t.Fatal(err)
			}
		}
		restore := func(types ...project.RedirectType) {
			t.Helper()
			if err := e.App.Projects.AddRedirectURL(ctx, id, apptest.Page, types); err != nil {
				t.Fatal(err)
			}
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		discoveryReset := func() apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": "ada@acme.test"}, "")
		}

		remove(project.RedirectResetPassword)
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", nil), 400, "no_password_reset_redirect_url")
		apptest.Want(t, discoveryReset(), 400, "no_password_reset_redirect_url")
		restore(project.RedirectResetPassword)

		remove(project.RedirectDiscovery)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", map[string]any{"email_address": "ada@acme.test"}, ""),
			400, "no_discovery_redirect_urls_set")
		if r := discoveryReset(); r.Status != 200 {
			t.Fatalf("discovery reset start without a discovery URL: %s", r.Raw)
		}
		if links, _ := e.LastMail("ada@acme.test"); len(links) != 1 || !strings.HasPrefix(links[0], apptest.Page+"?") {
			t.Fatalf("want the reset link alone, got %v", links)
		}
		restore(project.RedirectDiscovery)

		remove(project.RedirectInvite)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": org,
			"email_address": "bob@acme.test"}), 400, "no_invite_redirect_urls_set")

		remove(project.RedirectLogin)
		if r := e.ResetStart(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("reset start without a login URL: %s", r.Raw)
		}
		if links, _ := e.LastMail("ada@acme.test"); len(links) != 1 {
			t.Fatalf("want the reset link alone, got %v", links)
		}
		apptest.Want(t, e.SendLink(org, "ada@acme.test", nil), 400, "no_login_redirect_urls_set")
	})
}
