package emailupdate_test

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/stepup"
)

// Moving a member's address takes a recent login on the SDK face, for
// oneself and for an admin acting on another member: a session whose
// newest factor is older than the step-up window (a stolen or long-idle
// session) is refused session_too_old and sends nothing, and a fresh login
// of the same member passes.
func TestEmailUpdateSDKNeedsARecentLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		e.Clock.Advance(stepup.Window + time.Second)
		apptest.Want(t, e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "bob2@acme.test"}), 403, "session_too_old")
		apptest.Want(t, e.StartEmailUpdate(f.Admin, f.PlainID, map[string]any{"email_address": "bob3@acme.test"}),
			403, "session_too_old")
		for _, to := range []string{"bob2@acme.test", "bob3@acme.test"} {
			if msgs, err := e.App.Outbox.List(t.Context(), to, 0); err != nil || len(msgs) != 0 {
				t.Fatalf("a stale session's update mailed %s: %d, %v", to, len(msgs), err)
			}
		}
		fresh := e.SessionFor(f.Acme, "bob@acme.test")
		if r := e.StartEmailUpdate(fresh, "", map[string]any{"email_address": "bob2@acme.test"}); r.Status != 200 {
			t.Fatalf("fresh session: %s", r.Raw)
		}
	})
}
