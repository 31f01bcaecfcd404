package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// A server started with another key than the one the database's secrets
// are sealed with refuses to start, before it seals anything (here: the
// signing key of a new project would be); so does a dev server with no key
// at all, whose throwaway key opens nothing either. The key is never in
// the message.
func TestStartRefusesAnotherEncryptionKey(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		quiet := app.Options{Clock: e.Clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		other := secretbox.NewKey()
		// A started App is not closed: Close would close the test's database.
		for key, want := range map[string]string{other: "is not the key", "": "none is configured"} {
			cfg := e.App.Config
			cfg.EncryptionKey = key
			_, err := app.NewWithDB(ctx, cfg, e.App.DB, quiet)
			switch {
			case err == nil:
				t.Fatalf("key %q: the server started", key)
			case !strings.Contains(err.Error(), want) || (key != "" && strings.Contains(err.Error(), key)):
				t.Fatalf("key %q: %v, want a message saying %q without the key", key, err, want)
			case key != "" && !errors.Is(err, app.ErrWrongEncryptionKey):
				t.Fatalf("key %q: %v, want ErrWrongEncryptionKey", key, err)
			}
		}
		if _, err := app.NewWithDB(ctx, e.App.Config, e.App.DB, quiet); err != nil {
			t.Fatalf("the right key: %v", err)
		}
		if _, err := e.App.Projects.SigningKeys(ctx, e.Project.Project.ID); err != nil {
			t.Fatalf("signing keys after the refused starts: %v", err)
		}
	})
}

// A database from before migration 0097 (no canary row) whose OAuth client
// secret is still sealed the way earlier versions sealed it (the legacy
// associated data, which the start-up's migrateSecrets reseals) must start
// with the very key it was sealed with: CheckKey runs before
// migrateSecrets, so that value does not open for its row yet, while the
// project's signing key does.
func TestStartWithRightKeyOpensLegacySealedSecrets(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		p := e.Project.Project.ID
		if err := e.App.OAuth.SaveConfig(ctx, oauth.ProviderConfig{ProjectID: p, Provider: "github",
			Config: providers.Config{ClientID: "gh-client", ClientSecret: "gh-s3cret"}}); err != nil {
			t.Fatal(err)
		}
		legacy := e.App.Box.Seal("gh-s3cret", "oauth:"+p+":github")
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE oauth_provider_configs SET client_secret = $1
			WHERE project_id = $2 AND provider = 'github'`, legacy, p); err != nil {
			t.Fatal(err)
		}
		// A database that has not run 0097's canary yet.
		if _, err := e.App.DB.ExecContext(ctx, `DELETE FROM encryption_key_check`); err != nil {
			t.Fatal(err)
		}
		quiet := app.Options{Clock: e.Clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if _, err := app.NewWithDB(ctx, e.App.Config, e.App.DB, quiet); err != nil {
			t.Fatalf("start with the key the secrets are sealed with: %v", err)
		}
		c, err := e.App.OAuth.LoadConfig(ctx, p, "github")
		if err != nil || c.ClientSecret != "gh-s3cret" {
			t.Fatalf("after start: %v %v", c, err)
		}
	})
}
