package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// Provider client secrets are sealed at rest for their row
// (app.SealedColumns); a secret sealed the way earlier versions did is
// resealed by the start-up migration and still opens.
func TestClientSecretSealedAtRestAndMigrated(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		if !slices.Contains(app.SealedColumns(), oauth.ClientSecretColumn) {
			t.Fatal("oauth client secrets are not among app.SealedColumns")
		}
		p := e.Project.Project.ID
		if err := e.App.OAuth.SaveConfig(ctx, oauth.ProviderConfig{ProjectID: p, Provider: "github",
			Config: providers.Config{ClientID: "gh-client", ClientSecret: "gh-s3cret"}}); err != nil {
			t.Fatal(err)
		}
		var id, stored string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT config_id, client_secret FROM oauth_provider_configs
			WHERE project_id = $1 AND provider = 'github'`, p).Scan(&id, &stored); err != nil {
			t.Fatal(err)
		}
		if !secretbox.IsSealed(stored) || strings.Contains(stored, "gh-s3cret") {
			t.Fatalf("client secret stored in clear: %q", stored)
		}
		if plain, err := oauth.ClientSecretColumn.OpenStored(e.App.Box, id, stored); err != nil || plain != "gh-s3cret" {
			t.Fatalf("open for its row: %q %v", plain, err)
		}
		if _, err := oauth.ClientSecretColumn.OpenStored(e.App.Box, p+":google", stored); err == nil {
			t.Fatal("the secret opened for another row")
		}

		// A database from before: the secret sealed with the old binding.
		legacy := e.App.Box.Seal("gh-s3cret", "oauth:"+p+":github")
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE oauth_provider_configs SET client_secret = $1 WHERE config_id = $2`,
			legacy, id); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.OAuth.LoadConfig(ctx, p, "github"); err == nil {
			t.Fatal("a legacy secret opened without migration")
		}
		if n, err := e.App.OAuth.MigrateSecrets(ctx); err != nil || n != 1 {
			t.Fatalf("MigrateSecrets = %d, %v; want 1", n, err)
		}
		if n, err := e.App.OAuth.MigrateSecrets(ctx); err != nil || n != 0 {
			t.Fatalf("second MigrateSecrets = %d, %v", n, err)
		}
		c, err := e.App.OAuth.LoadConfig(ctx, p, "github")
		if err != nil || c.ClientSecret != "gh-s3cret" {
			t.Fatalf("after migration: %v %v", c, err)
		}
		// Plaintext left from before a key was configured is sealed too.
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE oauth_provider_configs SET client_secret = 'gh-plain' WHERE config_id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if n, err := atrest.SealExisting(ctx, e.App.DB, e.App.Box, app.SealedColumns()...); err != nil || n != 1 {
			t.Fatalf("SealExisting = %d, %v", n, err)
		}
		if c, err := e.App.OAuth.LoadConfig(ctx, p, "github"); err != nil || c.ClientSecret != "gh-plain" {
			t.Fatalf("after sealing plaintext: %v %v", c, err)
		}
	})
}

// A registration's provider tokens are sealed for their row; tokens
// sealed the way earlier versions did (for the project) are resealed by
// the start-up migration and still answer the provider-info call.
func TestRegistrationTokensSealedAtRestAndMigrated(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		if !slices.Contains(app.SealedColumns(), oauth.TokensColumn) {
			t.Fatal("oauth registration tokens are not among app.SealedColumns")
		}
		f := newFakeAPI(t, map[string]any{
			"/user":        map[string]any{"id": 4242, "login": "octo", "name": "Octo Cat"},
			"/user/emails": []any{map[string]any{"email": "octo@hub.test", "primary": true, "verified": true}},
			"/user/orgs":   []any{},
		})
		configure(t, e, providers.GitHub, f.config())
		org := e.CreateOrg("hub", "ALL_ALLOWED", nil)
		u := browse(t, e, startPath(e, "github", url.Values{"organization_id": {org}}))
		r := e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")})
		apptest.Want(t, r, 200, "")
		info := "/v1/b2b/organizations/" + org + "/members/" + r.Body["member_id"].(string) + "/oauth_providers/github"
		var regID, stored string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT registration_id, tokens FROM member_oauth_registrations
			WHERE member_id = $1`, r.Body["member_id"]).Scan(&regID, &stored); err != nil {
			t.Fatal(err)
		}
		plain, err := oauth.TokensColumn.OpenStored(e.App.Box, regID, stored)
		if err != nil || !secretbox.IsSealed(stored) || !strings.Contains(plain, "at-1") || strings.Contains(stored, "at-1") {
			t.Fatalf("tokens at rest: %v", err)
		}

		legacy := e.App.Box.Seal(plain, "oauth-tokens:"+e.Project.Project.ID)
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE member_oauth_registrations SET tokens = $1 WHERE registration_id = $2`,
			legacy, regID); err != nil {
			t.Fatal(err)
		}
		if n, err := e.App.OAuth.MigrateSecrets(ctx); err != nil || n != 1 {
			t.Fatalf("MigrateSecrets = %d, %v; want 1", n, err)
		}
		if n, err := e.App.OAuth.MigrateSecrets(ctx); err != nil || n != 0 {
			t.Fatalf("second MigrateSecrets = %d, %v", n, err)
		}
		r = e.Backend(http.MethodGet, info, nil)
		apptest.Want(t, r, 200, "")
		if regs := r.Body["registrations"].([]any); len(regs) != 1 || str(regs[0].(map[string]any), "access_token") != "at-1" {
			t.Fatalf("provider info after migration: %s", r.Raw)
		}
	})
}
