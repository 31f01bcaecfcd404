package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/oauth2-proxy/mockoidc"
)

// githubLogin sets up the fake GitHub (octo, user 4242) for a new
// organization with octo as a member, and returns a login through it and
// the member's oauth_providers/github path.
func githubLogin(t *testing.T, e *apptest.Env) (f *fakeAPI, org, memberID string, login func(), path string) {
	t.Helper()
	f = newFakeAPI(t, map[string]any{"/user": map[string]any{"id": 4242, "login": "octo"}, "/user/orgs": []any{},
		"/user/emails": []any{map[string]any{"email": "octo@hub.test", "primary": true, "verified": true}}})
	configure(t, e, providers.GitHub, f.config())
	org = e.CreateOrg("hub", "NOT_ALLOWED", nil)
	memberID = e.CreateMember(org, "octo@hub.test")
	login = func() {
		t.Helper()
		u := browse(t, e, startPath(e, "github", url.Values{"organization_id": {org}}))
		r := e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 200, "")
	}
	return f, org, memberID, login, "/v1/b2b/organizations/" + org + "/members/" + memberID + "/oauth_providers/github"
}

// githubTokens reads the member's one GitHub registration's access and
// refresh tokens through the backend.
func githubTokens(t *testing.T, e *apptest.Env, path string) (access, refresh string) {
	t.Helper()
	r := e.Backend(http.MethodGet, path+"?include_refresh_token=true", nil)
	apptest.Want(t, r, 200, "")
	regs, _ := r.Body["registrations"].([]any)
	if len(regs) != 1 {
		t.Fatalf("registrations: %s", r.Raw)
	}
	reg := regs[0].(map[string]any)
	return str(reg, "access_token"), str(reg, "refresh_token")
}

// A provider issues a refresh token only at some logins (Google at the
// first consent): a later login whose answer has none keeps the refresh
// token stored before, with that login's access token; a later login that
// brings one replaces it.
func TestOAuthRefreshTokenKeptAcrossLogins(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f, _, _, login, path := githubLogin(t, e)
		f.queueTokens([2]string{"at-1", "rt-1"}, [2]string{"at-2", ""}, [2]string{"at-3", "rt-3"})
		for i, want := range [][2]string{{"at-1", "rt-1"}, {"at-2", "rt-1"}, {"at-3", "rt-3"}} {
			login()
			if access, refresh := githubTokens(t, e, path); access != want[0] || refresh != want[1] {
				t.Fatalf("after login %d: access %q refresh %q, want %q %q", i+1, access, refresh, want[0], want[1])
			}
		}
	})
}

// Deleting a member clears the provider tokens of their registrations in
// the deletion, and the backend's oauth_providers route refuses the
// deleted member as inactive_member. The registration stays with the
// member; a reactivation brings it back without tokens (the member logs
// in again for new ones). Other members' tokens are left alone.
func TestOAuthProviderTokensEndWithMemberDeletion(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		_, org, memberID, login, path := githubLogin(t, e)
		login()
		if access, refresh := githubTokens(t, e, path); access != "at-1" || refresh != "rt-1" {
			t.Fatalf("before the deletion: %q %q", access, refresh)
		}
		// Another member of the organization, with Google tokens.
		g := startGoogle(t, e)
		bobID := e.CreateMember(org, "bob@hub.test")
		g.QueueUser(&mockoidc.MockUser{Subject: "g-bob", Email: "bob@hub.test", EmailVerified: true})
		u := browse(t, e, startPath(e, "google", url.Values{"organization_id": {org}}))
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, ""), 200, "")

		e.DeleteMember(org, memberID)
		apptest.Want(t, e.Backend(http.MethodGet, path+"?include_refresh_token=true", nil), 403, "inactive_member")
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/members/"+memberID+"/oauth_providers/google", nil),
			403, "inactive_member")
		var stored string
		if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT tokens FROM member_oauth_registrations
			WHERE member_id = $1`, memberID).Scan(&stored); err != nil || stored != "" {
			t.Fatalf("deleted member's stored tokens %q (%v)", stored, err)
		}
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/members/"+bobID+"/oauth_providers/google?include_refresh_token=true", nil)
		apptest.Want(t, r, 200, "")
		if r.Body["access_token"] == "" || r.Body["refresh_token"] == "" {
			t.Fatalf("another member's tokens went with the deletion: %s", r.Raw)
		}

		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+memberID+"/reactivate", nil), 200, "")
		if access, refresh := githubTokens(t, e, path); access != "" || refresh != "" {
			t.Fatalf("reactivation brought tokens back: %q %q", access, refresh)
		}
		login()
		if access, refresh := githubTokens(t, e, path); access != "at-1" || refresh != "rt-1" {
			t.Fatalf("a login after the reactivation: %q %q", access, refresh)
		}
	})
}

// Members deleted before deletions cleared provider tokens kept theirs:
// oauth/0004 clears them, and leaves those of members who are not deleted.
func TestDeletedMemberTokensMigration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		_, _, memberID, login, _ := githubLogin(t, e)
		login()
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		otherID := e.CreateMember(other, "octo@hub.test")
		u := browse(t, e, startPath(e, "github", url.Values{"organization_id": {other}}))
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, ""), 200, "")
		// A deletion as it was: the status alone.
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE members SET status = $1 WHERE member_id = $2`, "deleted", memberID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.DB.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = $1`, "oauth/0004"); err != nil {
			t.Fatal(err)
		}
		if err := e.App.DB.Migrate(ctx, app.Migrations()...); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]bool{memberID: false, otherID: true} {
			var stored string
			if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT tokens FROM member_oauth_registrations
				WHERE member_id = $1`, id).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if (stored != "") != want {
				t.Errorf("member %s has tokens %v after the migration, want %v", id, stored != "", want)
			}
		}
	})
}
