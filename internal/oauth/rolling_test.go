package oauth_test

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// During a rolling deploy a replica of the release before config_id
// (oauth migration 0002) inserts provider configurations without it, so
// they keep its default, the empty string. Several such rows fit on the
// migrated schema, and the next start's MigrateSecrets gives each its key
// and reseals its secret for it.
func TestOlderReleaseConfigsWithoutKey(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		p := e.Project.Project.ID
		other := e.NewProject("Other App").Project.ID
		rows := []struct{ project, provider, secret string }{
			{p, "github", "gh-s3cret"}, {p, "google", "go-s3cret"}, {other, "github", "other-s3cret"}}
		for _, r := range rows {
			// The older release's statement, its secret sealed its way.
			if _, err := e.App.DB.ExecContext(ctx, `INSERT INTO oauth_provider_configs (project_id, provider, client_id,
				client_secret, created_at, updated_at) VALUES ($1, $2, 'client', $3, 1, 1)`,
				r.project, r.provider, e.App.Box.Seal(r.secret, "oauth:"+r.project+":"+r.provider)); err != nil {
				t.Fatalf("insert %s %s: %v", r.project, r.provider, err)
			}
		}
		if n := e.Count(`SELECT COUNT(*) FROM oauth_provider_configs WHERE config_id = ''`); n != len(rows) {
			t.Fatalf("%d configurations without a key, want %d", n, len(rows))
		}
		if n, err := e.App.OAuth.MigrateSecrets(ctx); err != nil || n != len(rows) {
			t.Fatalf("MigrateSecrets = %d, %v; want %d", n, err, len(rows))
		}
		for _, r := range rows {
			c, err := e.App.OAuth.LoadConfig(ctx, r.project, r.provider)
			if err != nil || c.ClientSecret != r.secret {
				t.Errorf("%s %s after MigrateSecrets: %+v, %v", r.project, r.provider, c, err)
			}
		}
		if n := e.Count(`SELECT COUNT(*) FROM oauth_provider_configs WHERE config_id = project_id || ':' || provider`); n != len(rows) {
			t.Errorf("%d configurations with their key, want %d", n, len(rows))
		}
		// Real keys stay unique.
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE oauth_provider_configs SET config_id = $1
			WHERE project_id = $2 AND provider = 'google'`, p+":github", p); err == nil {
			t.Error("two configurations share a key")
		}
	})
}
