package telemetry_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
)

func batch(token string, n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"telemetry": map[string]any{}, "event": map[string]any{"public_token": token,
			"event_name": "render", "details": map[string]any{"i": i}}}
	}
	return out
}

func stored(t *testing.T, e *apptest.Env, projectID string) int {
	t.Helper()
	var n int
	if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM events WHERE project_id = $1`,
		projectID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Anyone holding a public token can post events, so a project's stored
// events and one address's writes are bounded; a batch past either bound
// is refused whole with the catalogue's too_many_requests.
func TestEventsAreBounded(t *testing.T) {
	t.Parallel()
	apptest.EachWith(t, func(c *config.Config) { c.EventsMaxPerProject, c.EventsMaxPerIP = 25, 40 }, func(t *testing.T, e *apptest.Env) {
		post := func(token string, n int) apptest.Resp {
			return e.Do(http.MethodPost, "/sdk/v1/events", batch(token, n), http.Header{"Origin": {apptest.Origin}}, "", "")
		}
		tok := e.Project.PublicToken
		apptest.Want(t, post(tok, 10), 200, "")
		apptest.Want(t, post(tok, 10), 200, "")
		r := post(tok, 10) // 30 > 25 per project per day
		apptest.Want(t, r, 429, "too_many_requests")
		if got := stored(t, e, e.Project.Project.ID); got != 20 {
			t.Fatalf("stored %d events, want the 20 accepted", got)
		}
		apptest.Want(t, post(tok, 5), 200, "") // exactly up to the limit
		apptest.Want(t, post(tok, 1), 429, "too_many_requests")

		// Another project has its own budget, but the same address is capped
		// per minute across projects: 20+10+5+1 = 36 events counted so far of 40.
		other := e.NewProject("Other")
		apptest.Want(t, post(other.PublicToken, 4), 200, "")
		apptest.Want(t, post(other.PublicToken, 1), 429, "too_many_requests")
		e.Clock.Advance(time.Minute)
		apptest.Want(t, post(other.PublicToken, 5), 200, "")
		if got := stored(t, e, other.Project.ID); got != 9 {
			t.Fatalf("other project stored %d, want 9", got)
		}
		// The next day the project may write again.
		e.Clock.Advance(24 * time.Hour)
		apptest.Want(t, post(tok, 5), 200, "")
	})
}
