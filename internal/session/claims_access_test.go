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
