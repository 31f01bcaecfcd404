package sweeper_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

func count(t *testing.T, e *apptest.Env, table string) int {
	t.Helper()
	var n int
	if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func login(t *testing.T, e *apptest.Env, org, email string) string {
	t.Helper()
	apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/login_or_signup",
		map[string]any{"email_address": email, "organization_id": org}, ""), 200, "")
	_, codes := e.LastMail(email)
	r := e.SDK(http.MethodPost, "/b2b/otps/email/authenticate",
		map[string]any{"email_address": email, "organization_id": org, "code": codes[0]}, "")
	apptest.Want(t, r, 200, "")
	return r.Data()["session_token"].(string)
}

// The sweeper deletes expired sessions, codes, rate-limit windows and old
// events and audit entries, and leaves what is still live.
func TestSweeperDeletesOnlyExpiredRows(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		login(t, e, org, "old@acme.test")
		e.Do(http.MethodPost, "/sdk/v1/events", []map[string]any{{"telemetry": map[string]any{}, "event": map[string]any{
			"public_token": e.Project.PublicToken, "event_name": "render"}}}, http.Header{"Origin": {apptest.Origin}}, "", "")
		for _, table := range []string{"member_sessions", "email_otps", "events", "audit_events", "rate_limits"} {
			if count(t, e, table) == 0 {
				t.Fatalf("setup left %s empty", table)
			}
		}
		sw := e.App.Sweeper()
		if _, err := sw.Once(ctx); err != nil {
			t.Fatal(err)
		}
		if count(t, e, "member_sessions") != 1 || count(t, e, "email_otps") == 0 {
			t.Fatal("the sweeper deleted live rows")
		}

		// Two days on, the first session and code are past expiry plus grace.
		e.Clock.Advance(49 * time.Hour)
		fresh := login(t, e, org, "new@acme.test")
		counts, err := sw.Once(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if count(t, e, "member_sessions") != 1 || counts["member_sessions"] != 1 || counts["email_otps"] < 1 {
			t.Fatalf("after expiry: sessions left %d, swept %v", count(t, e, "member_sessions"), counts)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{"session_token": fresh}, fresh), 200, "")
		if count(t, e, "events") != 1 {
			t.Fatal("events were swept before their retention")
		}
		var windows int
		_ = e.App.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM rate_limits WHERE window_start < $1`,
			e.Clock.Now().Add(-24*time.Hour).UnixMilli()).Scan(&windows)
		if windows != 0 {
			t.Fatalf("%d finished rate-limit windows left", windows)
		}

		// A week on, the telemetry event goes; the audit log stays longer.
		e.Clock.Advance(6 * 24 * time.Hour)
		if _, err := sw.Once(ctx); err != nil {
			t.Fatal(err)
		}
		if count(t, e, "events") != 0 || count(t, e, "audit_events") == 0 {
			t.Fatalf("events %d, audit %d after a week", count(t, e, "events"), count(t, e, "audit_events"))
		}
		e.Clock.Advance(181 * 24 * time.Hour)
		if _, err := sw.Once(ctx); err != nil {
			t.Fatal(err)
		}
		if count(t, e, "audit_events") != 0 {
			t.Fatal("audit entries outlived their retention")
		}
	})
}
