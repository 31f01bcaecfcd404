package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// A provider failure refuses the callback with oauth_flow_callback_error,
// and its cause is logged: HubSpot's token metadata URL has the access
// token in its path, and the logged cause names the resource without it.
func TestLoggedProviderFailureHoldsNoToken(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const access = "hubspot-access-token-in-the-path"
		// The token endpoint hands out the token; its metadata is not
		// there (404).
		hub := newFakeAPI(t, map[string]any{})
		hub.queueTokens([2]string{access, ""})
		configure(t, e, providers.HubSpot, hub.config())
		org := e.CreateOrg("hub", "NOT_ALLOWED", nil)
		r := e.Get(startPath(e, "hubspot", url.Values{"organization_id": {org}}))
		if r.Status != http.StatusFound {
			t.Fatalf("start: %d %s", r.Status, r.Raw)
		}
		_, cb := follow(t, r.Header.Get("Location"))
		apptest.Want(t, e.Get(cb), 400, "oauth_flow_callback_error")
		logs := e.Logs()
		if strings.Contains(logs, access) {
			t.Fatalf("the log holds the access token:\n%s", logs)
		}
		if !strings.Contains(logs, "hubspot token metadata answered 404") {
			t.Fatalf("the cause is not logged:\n%s", logs)
		}
	})
}
