package sso_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/sso"
)

// secretRows reads a connection's sso_secrets rows.
func secretRows(t *testing.T, e *apptest.Env, connID string) map[string]string {
	t.Helper()
	rows, err := e.App.DB.Read().QueryContext(context.Background(),
		`SELECT secret_id, secret FROM sso_secrets WHERE connection_id = $1`, connID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, v string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		out[id] = v
	}
	return out
}

func config(t *testing.T, e *apptest.Env, connID string) map[string]any {
	t.Helper()
	var text string
	if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT config FROM sso_connections WHERE connection_id = $1`,
		connID).Scan(&text); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// toLegacy rewrites a connection as versions before sso_secrets stored it:
// each secret sealed inside the config JSON with the old associated data,
// and no sso_secrets rows.
func toLegacy(t *testing.T, e *apptest.Env, connID string) {
	t.Helper()
	ctx := context.Background()
	cfg := config(t, e, connID)
	for id, stored := range secretRows(t, e, connID) {
		plain, err := sso.SecretColumn.OpenStored(e.App.Box, id, stored)
		if err != nil {
			t.Fatal(err)
		}
		if id == connID {
			cfg["client_secret"] = e.App.Box.Seal(plain, "sso:"+connID+":client_secret")
			continue
		}
		for _, list := range []string{"signing_keys", "encryption_keys"} {
			keys, _ := cfg[list].([]any)
			for _, k := range keys {
				if k := k.(map[string]any); k["id"] == id {
					k["sealed_key"] = e.App.Box.Seal(plain, "sso:"+connID+":"+id)
				}
			}
		}
	}
	text, _ := json.Marshal(cfg)
	if _, err := e.App.DB.ExecContext(ctx, `UPDATE sso_connections SET config = $1 WHERE connection_id = $2`, string(text), connID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.App.DB.ExecContext(ctx, `DELETE FROM sso_secrets WHERE connection_id = $1`, connID); err != nil {
		t.Fatal(err)
	}
}

// Private keys and client secrets are sealed at rest in sso_secrets, one
// row each (app.SealedColumns), never in the config JSON; a database from
// before (secrets sealed inside the JSON) is migrated at start-up, after
// which logins still work.
func TestSecretsSealedAtRestAndMigrated(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		if !containsColumn(app.SealedColumns(), sso.SecretColumn) {
			t.Fatal("sso_secrets is not among app.SealedColumns")
		}
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"saml_encryption_private_key": rsaPEM(t)}), 200, "")
		oidc := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{})
		oidcID := oidc.Body["connection"].(map[string]any)["connection_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+oidcID,
			map[string]any{"client_id": "abc", "client_secret": "s3cret-value", "issuer": "https://idp.example/x",
				"authorization_url": "https://idp.example/a", "token_url": "https://idp.example/t", "jwks_url": "https://idp.example/k"}), 200, "")

		saml, od := secretRows(t, e, s.connID), secretRows(t, e, oidcID)
		if len(saml) != 2 || len(od) != 1 {
			t.Fatalf("secret rows: saml %d, oidc %d", len(saml), len(od))
		}
		for id, v := range saml {
			if !secretbox.IsSealed(v) || strings.Contains(v, "PRIVATE KEY") {
				t.Fatalf("%s stored in clear", id)
			}
		}
		if plain, err := sso.SecretColumn.OpenStored(e.App.Box, oidcID, od[oidcID]); err != nil || plain != "s3cret-value" {
			t.Fatalf("client secret: %q %v", plain, err)
		}
		// Bound to its row: another row's id does not open it.
		for id := range saml {
			if _, err := sso.SecretColumn.OpenStored(e.App.Box, oidcID, saml[id]); err == nil {
				t.Fatal("a key opened as another row")
			}
		}
		for _, id := range []string{s.connID, oidcID} {
			text, _ := json.Marshal(config(t, e, id))
			if strings.Contains(string(text), secretbox.Prefix) {
				t.Fatalf("config of %s holds a secret: %s", id, text)
			}
		}

		// A database from before: secrets inside the config JSON.
		toLegacy(t, e, s.connID)
		toLegacy(t, e, oidcID)
		n, err := e.App.SSO.MigrateSecrets(ctx)
		if err != nil || n != 3 {
			t.Fatalf("MigrateSecrets = %d, %v; want 3", n, err)
		}
		if n, err := e.App.SSO.MigrateSecrets(ctx); err != nil || n != 0 {
			t.Fatalf("second MigrateSecrets = %d, %v", n, err)
		}
		if n, err := atrest.SealExisting(ctx, e.App.DB, e.App.Box, app.SealedColumns()...); err != nil || n != 0 {
			t.Fatalf("SealExisting after the move = %d, %v", n, err)
		}
		if got := secretRows(t, e, oidcID); len(got) != 1 {
			t.Fatalf("oidc secret not moved: %v", got)
		} else if plain, err := sso.SecretColumn.OpenStored(e.App.Box, oidcID, got[oidcID]); err != nil || plain != "s3cret-value" {
			t.Fatalf("moved client secret: %q %v", plain, err)
		}
		// The moved keys still sign and decrypt: a full (encrypted) login.
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		token := tokenFrom(t, s.post(s.idp.follow(s.start(nil))))
		apptest.Want(t, s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, ""), 200, "")
	})
}

func containsColumn(cols []atrest.Column, c atrest.Column) bool {
	for _, have := range cols {
		if have == c {
			return true
		}
	}
	return false
}
