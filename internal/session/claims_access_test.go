package session_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A check that writes custom claims is still an access of the session:
// its last_accessed_at is recorded as any other check's is. It used not to
// be (the claims write took the place of the touch), so a backend sending
// session_custom_claims on every check left the session's last access at
// its login for ever, in the answer, the JWT and the row.
func TestCheckWithClaimsRecordsTheAccess(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _, _ := e.Login(org, "ada@acme.test")
		e.Clock.Advance(2 * time.Minute)
		now := e.Clock.Now().Truncate(time.Millisecond)
		r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
			"session_custom_claims": map[string]any{"team": "blue"}})
		apptest.Want(t, r, 200, "")
		ms := r.Body["member_session"].(map[string]any)
		at, err := time.Parse(time.RFC3339Nano, ms["last_accessed_at"].(string))
		if err != nil || !at.Equal(now) {
			t.Fatalf("the check with claims answered last_accessed_at %v, want %v", ms["last_accessed_at"], now)
		}
		var inJWT struct {
			Session struct {
				LastAccessedAt time.Time `json:"last_accessed_at"`
			} `json:"https://stytch.com/session"`
		}
		if err := jwtPayload(r.Body["session_jwt"].(string), &inJWT); err != nil || !inJWT.Session.LastAccessedAt.Equal(now) {
			t.Fatalf("its JWT says last_accessed_at %v (%v), want %v", inJWT.Session.LastAccessedAt, err, now)
		}
		if err := e.App.Sessions.FlushTouches(context.Background()); err != nil {
			t.Fatal(err)
		}
		var stored int64
		if err := e.App.DB.Read().QueryRowContext(context.Background(),
			`SELECT last_accessed_at FROM member_sessions WHERE member_session_id = $1`,
			ms["member_session_id"]).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != now.UnixMilli() {
			t.Fatalf("stored last_accessed_at %v, want %v", time.UnixMilli(stored).UTC(), now)
		}
	})
}

// An extension records the access as every other write of it does: never
// backwards. Another replica whose clock runs a little ahead may have
// recorded a later access already; the extension (with or without claims)
// used to overwrite it with this process's earlier time.
func TestExtensionNeverMovesTheLastAccessBack(t *testing.T) {
	for _, claims := range []bool{false, true} {
		t.Run(map[bool]string{false: "extension", true: "extension with claims"}[claims], func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				ctx := context.Background()
				org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
				token, _, _ := e.Login(org, "ada@acme.test")
				e.Clock.Advance(2 * time.Minute)
				ahead := e.Clock.Now().Add(30 * time.Second).Truncate(time.Millisecond)
				if _, err := e.App.DB.ExecContext(ctx, `UPDATE member_sessions SET last_accessed_at = $1`,
					ahead.UnixMilli()); err != nil {
					t.Fatal(err)
				}
				body := map[string]any{"session_token": token, "session_duration_minutes": 60}
				if claims {
					body["session_custom_claims"] = map[string]any{"team": "blue"}
				}
				r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", body)
				apptest.Want(t, r, 200, "")
				if err := e.App.Sessions.FlushTouches(ctx); err != nil {
					t.Fatal(err)
				}
				var stored int64
				if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT last_accessed_at FROM member_sessions`).Scan(&stored); err != nil {
					t.Fatal(err)
				}
				if stored != ahead.UnixMilli() {
					t.Fatalf("claims %v: stored last_accessed_at %v after the extension, want the later %v kept",
						claims, time.UnixMilli(stored).UTC(), ahead)
				}
			})
		})
	}
}
