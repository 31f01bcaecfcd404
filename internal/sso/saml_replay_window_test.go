package sso_test

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
)

// An assertion id is remembered past the end of its acceptance window: the
// window is judged on one clock reading and the sweep runs on a later one
// (or on a replica whose clock runs ahead), so an assertion accepted just
// before the window closed must still be refused as a replay just after.
func TestSAMLReplayRefusedJustAfterTheWindow(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		end := e.Clock.Now().Add(time.Minute)
		if err := e.App.SSO.RememberAssertion(ctx, "conn-a", "assertion-1", end); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(time.Minute + 2*time.Millisecond)
		err := e.App.SSO.RememberAssertion(ctx, "conn-a", "assertion-1", end)
		if ae := apierr.From(err); err == nil || ae.Type != apierr.DuplicateSAMLResponse {
			t.Fatalf("replay 2 ms after the window: %v, want duplicate_saml_response", err)
		}
		// Long after, the entry is swept (each call sweeps first), so the
		// table does not grow without end.
		e.Clock.Advance(10 * time.Minute)
		if err := e.App.SSO.RememberAssertion(ctx, "conn-a", "assertion-1", end); err != nil {
			t.Fatalf("an assertion id long past its window was never swept: %v", err)
		}
	})
}
