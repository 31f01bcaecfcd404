package telemetry_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// An event is accepted only from an origin its own project authorizes (or
// the server's own): a page on an origin registered only for another
// project cannot post events into this one, or use up its daily events
// cap, with or without that other project's credentials on the request.
func TestEventsNeedTheirOwnProjectsOrigin(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const otherOrigin = "http://other.customer.test"
		other, err := e.App.Projects.Create(context.Background(), project.CreateParams{Name: "Other",
			RedirectURLs: []string{otherOrigin + "/login"}, Origins: []string{otherOrigin}})
		if err != nil {
			t.Fatal(err)
		}
		post := func(token, origin, user string) apptest.Resp {
			return e.Do(http.MethodPost, "/sdk/v1/events", batch(token, 1), http.Header{"Origin": {origin}}, user, user)
		}
		mine := e.Project.PublicToken
		apptest.Want(t, post(mine, otherOrigin, ""), 403, "bad_domain_for_stytch_sdk")
		apptest.Want(t, post(mine, otherOrigin, other.PublicToken), 403, "bad_domain_for_stytch_sdk")
		if got := stored(t, e, e.Project.Project.ID); got != 0 {
			t.Fatalf("stored %d events from another project's origin", got)
		}
		// Each project's own origin still may (the server's own origin is
		// project.OriginPolicy.AllowsFor's test: apptest fixes the server's
		// URL only after the routes are built).
		apptest.Want(t, post(mine, apptest.Origin, ""), 200, "")
		apptest.Want(t, post(other.PublicToken, otherOrigin, ""), 200, "")
		apptest.Want(t, post(other.PublicToken, otherOrigin, other.PublicToken), 200, "")
		if got := stored(t, e, e.Project.Project.ID); got != 1 {
			t.Fatalf("stored %d events, want the 1 from an allowed origin", got)
		}
		if got := stored(t, e, other.Project.ID); got != 2 {
			t.Fatalf("other project stored %d events, want 2", got)
		}
	})
}
