package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A provider's address is normalized like every other address
// (emailaddr.Normalize) before it finds or admits a member: GitHub's
// " Ada@Acme.Test " is the member ada@acme.test. An address the rest of
// the system refuses ("ada@acme", without a top-level domain) is refused
// at the callback with invalid_email, where tenant JIT would otherwise
// admit a member with it.
func TestProviderAddressIsNormalized(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := tenantOrg(e)
		ada := e.CreateMember(org, "ada@acme.test")
		useGitHub(t, e, " Ada@Acme.Test ", true)
		r := gitHubLogin(t, e, org)
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != ada {
			t.Fatalf("logged in as: %s", r.Raw)
		}

		useGitHub(t, e, "ada@acme", true)
		start := e.Get(startPath(e, "github", url.Values{"organization_id": {org}}))
		if start.Status != http.StatusFound {
			t.Fatalf("start: %s", start.Raw)
		}
		_, cb := follow(t, start.Header.Get("Location"))
		apptest.Want(t, e.Get(cb), 400, "invalid_email")
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, org); n != 1 {
			t.Fatalf("%d members", n)
		}
	})
}
