package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// withSMTP queues real email (sealed) besides the dev mailbox; no test
// here starts the delivery loop, so the queue keeps what was sent.
func withSMTP(c *config.Config) { c.SMTPURL = "smtp://127.0.0.1:1?tls=none" }

// rekeyFixture is a database holding one of every kind of sealed secret,
// made through the server's own flows.
type rekeyFixture struct {
	totpOrg, totpMember, totpSecret string
	oauthOrg, oauthMember           string
	pendingOAuthToken               string // a Google login waiting for authenticate
	ssoConn                         string
}

func newRekeyFixture(t *testing.T, e *apptest.Env) rekeyFixture {
	t.Helper()
	var f rekeyFixture
	// A TOTP member (secret and recovery codes); the email logins queue
	// mail. The project's signing key exists since the project does.
	f.totpOrg, f.totpMember, f.totpSecret, _ = e.TOTPMember()

	// Google (mockoidc) with a client secret; a login authenticated (its
	// registration keeps the provider tokens) and one left waiting (its
	// token ticket carries them).
	op, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = op.Shutdown() })
	if err := e.App.OAuth.SaveConfig(context.Background(), oauth.ProviderConfig{ProjectID: e.Project.Project.ID,
		Provider: providers.Google, Config: providers.Config{ClientID: op.ClientID, ClientSecret: op.ClientSecret,
			Issuer: op.Issuer()}}); err != nil {
		t.Fatal(err)
	}
	f.oauthOrg = e.CreateOrg("goog", "NOT_ALLOWED", nil)
	f.oauthMember = e.CreateMember(f.oauthOrg, "gail@goog.test")
	googleLogin := func() string {
		t.Helper()
		op.QueueUser(&mockoidc.MockUser{Subject: "g-gail", Email: "gail@goog.test", EmailVerified: true})
		q := url.Values{"public_token": {e.Project.PublicToken}, "organization_id": {f.oauthOrg}}
		return googleToken(t, e, "/v1/b2b/public/oauth/google/start?"+q.Encode())
	}
	apptest.Want(t, e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": googleLogin()}, ""), 200, "")
	f.pendingOAuthToken = googleLogin()

	// An OIDC SSO connection's client secret.
	ssoOrg := e.CreateOrg("corp", "NOT_ALLOWED", nil)
	r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+ssoOrg, map[string]any{})
	apptest.Want(t, r, 200, "")
	f.ssoConn = r.Body["connection"].(map[string]any)["connection_id"].(string)
	apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+ssoOrg+"/connections/"+f.ssoConn,
		map[string]any{"client_id": "abc", "client_secret": "sso-s3cret", "issuer": "https://idp.example/x",
			"authorization_url": "https://idp.example/a", "token_url": "https://idp.example/t",
			"jwks_url": "https://idp.example/k"}), 200, "")
	if e.Count(`SELECT COUNT(*) FROM mail_queue`) == 0 {
		t.Fatal("fixture: no queued mail")
	}
	return f
}

// googleToken runs the browser's part of a Google login and returns the
// token the customer's page receives.
func googleToken(t *testing.T, e *apptest.Env, start string) string {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r := e.Get(start)
	if r.Status != http.StatusFound {
		t.Fatalf("start: %d %s", r.Status, r.Raw)
	}
	res, err := noFollow.Get(r.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	r = e.Get(res.Header.Get("Location"))
	u, err := url.Parse(r.Header.Get("Location"))
	if r.Status != http.StatusFound || err != nil || u.Query().Get("token") == "" {
		t.Fatalf("callback: %d %s", r.Status, r.Raw)
	}
	return u.Query().Get("token")
}

var sealedValue = regexp.MustCompile(secretbox.Prefix + `[A-Za-z0-9+/]+`)

// sealedStrings finds every sealed value in every text column of every
// table, inside JSON too, by where it was found. It looks everywhere, not
// only where the rotation looks, so a place the rotation misses shows.
func sealedStrings(t *testing.T, db *store.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	q := `SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND upper(p.type) = 'TEXT'`
	if db.Dialect() == store.Postgres {
		q = `SELECT table_name, column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND data_type = 'text'`
	}
	rows, err := db.Read().QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var cols [][2]string
	for rows.Next() {
		var c [2]string
		if err := rows.Scan(&c[0], &c[1]); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	out := map[string]string{}
	for _, c := range cols {
		vals, err := db.Read().QueryContext(ctx, `SELECT `+c[1]+` FROM `+c[0]+` WHERE `+c[1]+` LIKE $1`, "%"+secretbox.Prefix+"%")
		if err != nil {
			t.Fatalf("%s.%s: %v", c[0], c[1], err)
		}
		for vals.Next() {
			var v string
			if err := vals.Scan(&v); err != nil {
				t.Fatal(err)
			}
			for _, s := range sealedValue.FindAllString(v, -1) {
				out[s] = c[0] + "." + c[1]
			}
		}
		vals.Close()
	}
	return out
}

// opened reads every value of the sealed columns with box, by place and
// row; a value that does not open is recorded as its error.
func opened(t *testing.T, db *store.DB, box *secretbox.Box) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range app.SealedColumns() {
		rows, err := c.Rows(context.Background(), db.Read())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			plain, err := c.OpenStored(box, r[0], r[1])
			if err != nil {
				plain = "error: " + err.Error()
			}
			out[c.Table+"."+c.Column+":"+r[0]] = plain
		}
	}
	return out
}

func keyBox(t *testing.T, key string) *secretbox.Box {
	t.Helper()
	k, err := secretbox.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	b, err := secretbox.New(k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Rotating the key reseals every sealed value in the database (signing
// keys, TOTP secrets and recovery codes, OAuth client secret and provider
// tokens, an OAuth login's tokens waiting in its ticket, an SSO client
// secret, the mail queue, the key check): none of the old ciphertexts is
// left, each value opens with the new key only, a server starts with the
// new key and reads them all back, and the old key is refused.
func TestRekeyResealsEverySecret(t *testing.T) {
	t.Parallel()
	apptest.EachWith(t, withSMTP, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		f := newRekeyFixture(t, e)
		old := e.App.Box
		before := sealedStrings(t, e.App.DB)
		plain := opened(t, e.App.DB, old)
		for place, v := range plain {
			if strings.HasPrefix(v, "error: ") {
				t.Fatalf("before the rotation %s: %s", place, v)
			}
		}
		places := map[string]bool{}
		for _, p := range before {
			places[p] = true
		}
		for _, want := range []string{"signing_keys.private_key_pem", "totp_registrations.secret", "recovery_codes.reveal",
			"oauth_provider_configs.client_secret", "member_oauth_registrations.tokens", "sso_secrets.secret",
			"flow_tickets.data", "mail_queue.sealed", "encryption_key_check.sealed"} {
			if !places[want] {
				t.Errorf("fixture: nothing sealed in %s (found %v)", want, places)
			}
		}

		newKey := secretbox.NewKey()
		to := keyBox(t, newKey)
		resealed, err := e.App.Rekey(ctx, to)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, r := range resealed {
			total += r.Count
		}
		after := sealedStrings(t, e.App.DB)
		if total != len(before) || len(after) != len(before) {
			t.Errorf("resealed %d (%v), %d sealed values before and %d after", total, resealed, len(before), len(after))
		}
		for v, place := range before {
			if _, ok := after[v]; ok {
				t.Errorf("%s still holds a value sealed before the rotation", place)
			}
		}
		for place, v := range opened(t, e.App.DB, to) {
			if v != plain[place] {
				t.Errorf("%s with the new key: %q, want the value from before", place, v)
			}
		}
		for place, v := range opened(t, e.App.DB, old) {
			if !strings.HasPrefix(v, "error: ") {
				t.Errorf("%s still opens with the old key", place)
			}
		}
		var mail string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT sealed FROM mail_queue LIMIT 1`).Scan(&mail); err != nil {
			t.Fatal(err)
		}
		if _, err := to.Open(mail, "mail_queue"); err != nil {
			t.Errorf("queued mail with the new key: %v", err)
		}

		quiet := app.Options{Clock: e.Clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if _, err := app.NewWithDB(ctx, e.App.Config, e.App.DB, quiet); !errors.Is(err, app.ErrWrongEncryptionKey) {
			t.Fatalf("start with the old key: %v, want ErrWrongEncryptionKey", err)
		}
		e2 := apptest.New(t, e.App.DB, func(c *config.Config) { withSMTP(c); c.EncryptionKey = newKey })
		e2.Project = e.Project
		// Later than everything e did: a new code is the newest mail, and
		// the TOTP code is of a step not spent yet.
		e2.Clock.Advance(e.Clock.Now().Sub(e2.Clock.Now()) + 2*time.Minute)
		// TOTP secret and signing key: a TOTP login issues a signed session.
		ist, _ := e2.MFALogin(f.totpOrg, "ada@secure.test")
		r := e2.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": f.totpOrg,
			"member_id": f.totpMember, "intermediate_session_token": ist, "code": apptest.TOTPAt(t, f.totpSecret, e2.Clock.Now())})
		apptest.Want(t, r, 200, "")
		if jwt, _ := r.Body["session_jwt"].(string); jwt == "" {
			t.Errorf("TOTP login: %s", r.Raw)
		}
		// The OAuth client secret, and the login waiting with its tokens.
		if c, err := e2.App.OAuth.LoadConfig(ctx, e.Project.Project.ID, providers.Google); err != nil || c.ClientSecret == "" {
			t.Errorf("OAuth config with the new key: %v", err)
		}
		r = e2.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": f.pendingOAuthToken}, "")
		apptest.Want(t, r, 200, "")
		if at, _ := r.Data()["provider_values"].(map[string]any)["access_token"].(string); at == "" {
			t.Errorf("pending login's provider tokens: %s", r.Raw)
		}
		r = e2.Backend(http.MethodGet, "/v1/b2b/organizations/"+f.oauthOrg+"/members/"+f.oauthMember+
			"/oauth_providers/google?include_refresh_token=true", nil)
		apptest.Want(t, r, 200, "")
		if r.Body["access_token"] == "" {
			t.Errorf("stored provider tokens: %s", r.Raw)
		}
		// The SSO connection's client secret.
		var ssoSecret string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT secret FROM sso_secrets WHERE secret_id = $1`, f.ssoConn).
			Scan(&ssoSecret); err != nil {
			t.Fatal(err)
		}
		if s, err := (atrest.Column{Table: "sso_secrets", Key: "secret_id", Column: "secret"}).OpenStored(to, f.ssoConn, ssoSecret); err != nil || s != "sso-s3cret" {
			t.Errorf("SSO client secret with the new key: %q %v", s, err)
		}
	})
}

// A value the current key does not open, wherever it is, stops the
// rotation with an error naming its table, column and row, and nothing is
// changed: every sealed value is the one from before, and the old key
// still starts the server. The same key is refused as the new one.
func TestRekeyAbortsOnAValueItCannotOpen(t *testing.T) {
	t.Parallel()
	apptest.EachWith(t, withSMTP, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		f := newRekeyFixture(t, e)
		foreign := secretbox.NewRandom()
		var ticketHash string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT ticket_hash FROM flow_tickets WHERE kind = 'oauth_token'
			AND used_at IS NULL`).Scan(&ticketHash); err != nil {
			t.Fatal(err)
		}
		var totpID string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT totp_registration_id FROM totp_registrations
			WHERE member_id = $1`, f.totpMember).Scan(&totpID); err != nil {
			t.Fatal(err)
		}
		var mailID string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT mail_id FROM mail_queue LIMIT 1`).Scan(&mailID); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			table, key, column, id string
			corrupt                func(stored string) string
		}{
			{"sso_secrets", "secret_id", "secret", f.ssoConn, func(string) string { return foreign.Seal("x", "y") }},
			{"totp_registrations", "totp_registration_id", "secret", totpID, func(s string) string { return s[:len(s)-4] + "AAAA" }},
			{"flow_tickets", "ticket_hash", "data", ticketHash, func(s string) string {
				var d map[string]any
				if err := json.Unmarshal([]byte(s), &d); err != nil {
					t.Fatal(err)
				}
				d["tokens"] = foreign.Seal("{}", "z")
				b, _ := json.Marshal(d)
				return string(b)
			}},
			{"mail_queue", "mail_id", "sealed", mailID, func(string) string { return foreign.Seal("x", "mail_queue") }},
		} {
			var stored string
			if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT `+c.column+` FROM `+c.table+` WHERE `+c.key+` = $1`, c.id).
				Scan(&stored); err != nil {
				t.Fatalf("%s: %v", c.table, err)
			}
			set := func(v string) {
				if _, err := e.App.DB.ExecContext(ctx, `UPDATE `+c.table+` SET `+c.column+` = $1 WHERE `+c.key+` = $2`, v, c.id); err != nil {
					t.Fatal(err)
				}
			}
			set(c.corrupt(stored))
			before := sealedStrings(t, e.App.DB)
			_, err := e.App.Rekey(ctx, keyBox(t, secretbox.NewKey()))
			place := c.table + "." + c.column + " row " + c.id
			if !errors.Is(err, atrest.ErrCannotOpen) || !strings.Contains(err.Error(), place) {
				t.Fatalf("corrupt %s: %v, want ErrCannotOpen naming %q", c.table, err, place)
			}
			after := sealedStrings(t, e.App.DB)
			if len(after) != len(before) {
				t.Fatalf("corrupt %s: %d sealed values before, %d after", c.table, len(before), len(after))
			}
			for v := range before {
				if _, ok := after[v]; !ok {
					t.Fatalf("corrupt %s: %s changed by a rotation that failed", c.table, before[v])
				}
			}
			set(stored)
		}
		if _, err := e.App.Rekey(ctx, e.App.Box); !errors.Is(err, app.ErrSameKey) {
			t.Errorf("rotation to the same key: %v, want ErrSameKey", err)
		}
		if _, err := e.App.Rekey(ctx, keyBox(t, apptest.TestEncryptionKey)); !errors.Is(err, app.ErrSameKey) {
			t.Errorf("rotation to the same key from its text: %v, want ErrSameKey", err)
		}
		quiet := app.Options{Clock: e.Clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if _, err := app.NewWithDB(ctx, e.App.Config, e.App.DB, quiet); err != nil {
			t.Fatalf("the old key after the failed rotations: %v", err)
		}
	})
}
