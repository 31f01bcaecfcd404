package session_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A check that extends a session, or writes its claims, answers the times
// the row keeps (milliseconds), so the next read of the same session, here
// or on another replica, answers the very same expires_at.
func TestExtensionAnswersStoredPrecision(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _, _ := e.Login(org, "ada@acme.test")
		check := func(body map[string]any) (expires, accessed string) {
			t.Helper()
			body["session_token"] = token
			r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", body)
			apptest.Want(t, r, 200, "")
			ms := r.Body["member_session"].(map[string]any)
			return ms["expires_at"].(string), ms["last_accessed_at"].(string)
		}
		for _, body := range []map[string]any{
			{"session_duration_minutes": 60},
			{"session_custom_claims": map[string]any{"team": "blue"}},
		} {
			e.Clock.Advance(2*time.Minute + 123456789*time.Nanosecond)
			expires, accessed := check(body)
			for _, v := range []string{expires, accessed} {
				at, err := time.Parse(time.RFC3339Nano, v)
				if err != nil || !at.Equal(at.Truncate(time.Millisecond)) {
					t.Fatalf("%v: answered %s, finer than the stored milliseconds", body, v)
				}
			}
			if again, _ := check(map[string]any{}); again != expires {
				t.Fatalf("%v: answered expires_at %s, the next read %s", body, expires, again)
			}
		}
	})
}
