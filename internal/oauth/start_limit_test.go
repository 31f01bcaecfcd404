package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth"
)

// OAuth starts are limited per client address: each start writes a state
// and sends the browser to the provider, so past StartPerIP starts in a
// window the next is refused before either.
func TestOAuthStartsLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		path := startPath(e, "google", url.Values{"organization_id": {org}})
		for i := range oauth.StartPerIP.Limit {
			if r := e.Get(path); r.Status != http.StatusFound {
				t.Fatalf("start %d: %d %s", i, r.Status, r.Raw)
			}
		}
		apptest.Want(t, e.Get(path), 429, "too_many_requests")
	})
}
