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
