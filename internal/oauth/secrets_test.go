package oauth_test

import (
	"context"
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
