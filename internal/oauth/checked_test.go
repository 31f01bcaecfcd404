package oauth_test

import (
	"context"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth"
)

// Start-up's MigrateSecrets looks only at the values not recorded as
// sealed for their row: what this release writes (a provider
// configuration, a login's tokens, a refresh's) is recorded as it is
// written, so a start reads no row at all; a value an older release writes
// during a rolling deploy is read once, resealed, and not read again.
func TestMigrateSecretsReadsOnlyUncheckedValues(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		realTime(e)
		passes := func(wantResealed, wantRead int) {
			t.Helper()
			resealed, read, err := e.App.OAuth.MigrateSecretsRead(ctx)
			if err != nil || resealed != wantResealed || read != wantRead {
				t.Fatalf("MigrateSecrets resealed %d and read %d rows, %v; want %d and %d", resealed, read, err, wantResealed, wantRead)
			}
		}
		// NewWithDB ran it already; nothing was there.
		passes(0, 0)
		f, _, memberID, login, path := githubLogin(t, e)
		f.queueTokens([2]string{"at-1", "rt-1"})
		login()
		passes(0, 0)
		// The access token's last minute: the provider-info call refreshes it.
		e.Clock.Advance(59*time.Minute + 30*time.Second)
		if access, _, _ := githubInfo(t, e, path); access != "at-r1" || f.refreshCount() != 1 {
			t.Fatalf("refresh: %s, %d refreshes", access, f.refreshCount())
		}
		passes(0, 0)

		// An older release writes the tokens sealed its way (for the
		// project), and a client secret sealed its way.
		var regID, stored string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT registration_id, tokens FROM member_oauth_registrations
			WHERE member_id = $1`, memberID).Scan(&regID, &stored); err != nil {
			t.Fatal(err)
		}
		plain, err := oauth.TokensColumn.OpenStored(e.App.Box, regID, stored)
		if err != nil {
			t.Fatal(err)
		}
		p := e.Project.Project.ID
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`UPDATE member_oauth_registrations SET tokens = $1 WHERE registration_id = $2`,
				[]any{e.App.Box.Seal(plain, "oauth-tokens:"+p), regID}},
			{`UPDATE oauth_provider_configs SET client_secret = $1 WHERE project_id = $2 AND provider = 'github'`,
				[]any{e.App.Box.Seal("secret", "oauth:"+p+":github"), p}},
		} {
			if _, err := e.App.DB.ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatal(err)
			}
		}
		passes(2, 2)
		passes(0, 0)
		if access, refresh := githubTokens(t, e, path); access != "at-r1" || refresh != "rt-1" {
			t.Fatalf("tokens after the reseal: %q %q", access, refresh)
		}
		// A value sealed for its row but not recorded (a key rotation
		// writes only the value) is read once and recorded.
		resealed, err := oauth.TokensColumn.SealStored(e.App.Box, regID, plain)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE member_oauth_registrations SET tokens = $1 WHERE registration_id = $2`,
			resealed, regID); err != nil {
			t.Fatal(err)
		}
		passes(0, 1)
		passes(0, 0)
	})
}
