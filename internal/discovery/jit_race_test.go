package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A discovery exchange into an organization that admits the address by
// email JIT, while another login of the address there creates its member:
// both find no member and both provision one. The second creation waits
// for the first and the exchange goes on as the member it created, not
// duplicate_member_email.
func TestDiscoveryJITExchangeWhileTheAddressIsProvisionedJoinsThatMember(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	org := e.CreateOrg("open-co", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"free.test"}})
	ist := e.Discover("y@free.test")["intermediate_session_token"]
	var r apptest.Resp
	e.DuringProvisioning(t, org, "y@free.test", func() {
		r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
			"organization_id": org}, "")
	})
	apptest.Want(t, r, 200, "")
}
