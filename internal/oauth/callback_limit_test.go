package oauth_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/oauth"
)

// OAuth callbacks are limited per client address: each one costs an
// outbound code exchange with the provider, so past CallbackPerIP
// callbacks in a window the next is refused before the exchange. The
// states come from starts at other addresses (behind a trusted proxy), so
// the start limit is not what refuses it.
func TestOAuthCallbacksLimitedPerAddress(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		from := func(ip string) http.Header { return http.Header{"X-Forwarded-For": {ip}} }
		callback := func(i int) apptest.Resp {
			t.Helper()
			ip := fmt.Sprintf("10.0.%d.%d", i/200, i%200+1)
			r := e.Do(http.MethodGet, startPath(e, "google", url.Values{"organization_id": {org}}), nil, from(ip), "", "")
			if r.Status != http.StatusFound {
				t.Fatalf("start %d: %d %s", i, r.Status, r.Raw)
			}
			authz, err := url.Parse(r.Header.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			// A code the provider never issued: the exchange fails, but the
			// callback has been counted by then.
			q := url.Values{"state": {authz.Query().Get("state")}, "code": {"not-a-code"}}
			return e.Do(http.MethodGet, "/v1/b2b/public/oauth/callback?"+q.Encode(), nil, from("203.0.113.7"), "", "")
		}
		for i := range oauth.CallbackPerIP.Limit {
			apptest.Want(t, callback(i), 400, "oauth_flow_callback_error")
		}
		apptest.Want(t, callback(oauth.CallbackPerIP.Limit), 429, "too_many_requests")
	})
}
