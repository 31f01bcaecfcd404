package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// olderSessionColumns is the member_sessions column list of a release
// from before store migration 0114 (and before custom_claims and
// lineage_id were watched).
const olderSessionColumns = "revoked_at, expires_at, authentication_factors, member_id, organization_id, project_id, token_hash"

// narrowSessionTrigger replaces the member_sessions trigger as such a
// release does when it restarts during a rolling deploy: unconditionally,
// with its narrower column list, the level rows untouched.
func narrowSessionTrigger(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	if db.Dialect() == store.Postgres {
		if _, err := db.ExecContext(ctx, `CREATE OR REPLACE TRIGGER changefeed_member_sessions_member_session_id_row
			AFTER UPDATE OF `+olderSessionColumns+` OR DELETE ON member_sessions
			FOR EACH ROW EXECUTE FUNCTION changefeed_record('member_session_id', 'session')`); err != nil {
			t.Fatal(err)
		}
		return
	}
	const name = "changefeed_member_sessions_member_session_id_update"
	var text string
	if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = $1`, name).Scan(&text); err != nil {
		t.Fatal(err)
	}
	i, j := strings.Index(text, "UPDATE OF "), strings.Index(text, " ON member_sessions")
	if i < 0 || j < i {
		t.Fatalf("unexpected trigger text %s", text)
	}
	for _, q := range []string{`DROP TRIGGER ` + name, text[:i] + "UPDATE OF " + olderSessionColumns + text[j:]} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A replica of an older release restarting during a rolling deploy
// narrows the member_sessions trigger: custom claims written since no
// longer reach this server's session cache. Its trigger check (run every
// changefeed.GuardInterval by Start) puts the trigger back and drops the
// caches, and later changes of custom_claims reach the cache within the
// feed's second again.
func TestTriggerGuardRestoresNarrowedSessionTrigger(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _, _ := e.Login(org, "ada@acme.test")
		plan := func() any {
			t.Helper()
			r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
			apptest.Want(t, r, 200, "")
			ms, _ := r.Body["member_session"].(map[string]any)
			claims, _ := ms["custom_claims"].(map[string]any)
			return claims["plan"]
		}
		setPlan := func(p string) {
			t.Helper()
			// Straight in SQL: no cache hears of it but through the
			// change feed.
			if _, err := e.App.DB.ExecContext(ctx, `UPDATE member_sessions SET custom_claims = $1 WHERE token_hash = $2`,
				`{"plan":"`+p+`"}`, ids.Hash(token)); err != nil {
				t.Fatal(err)
			}
		}
		if got := plan(); got != nil {
			t.Fatalf("plan before any change: %v", got)
		}
		plan() // cached

		narrowSessionTrigger(t, e.App.DB)
		setPlan("free")
		time.Sleep(1200 * time.Millisecond)
		if got := plan(); got != nil {
			t.Fatalf("the narrowed trigger still records custom_claims (plan %v): the test does not narrow it", got)
		}

		guard, err := e.App.TriggerGuard()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := guard.Check(ctx); err != nil || len(got) == 0 {
			t.Fatalf("check: %v, %v; want the session trigger repaired", got, err)
		}
		if got := plan(); got != "free" {
			t.Fatalf("plan after the check: %v, want the change the narrowed trigger missed", got)
		}
		setPlan("pro")
		deadline := time.Now().Add(time.Second)
		for plan() != "pro" {
			if time.Now().After(deadline) {
				t.Fatal("a change of custom_claims did not reach the cache within a second after the check")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got, err := guard.Check(ctx); err != nil || got != nil {
			t.Fatalf("a second check: %v, %v; want nothing to repair", got, err)
		}
	})
}
