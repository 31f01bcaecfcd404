package scim_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
)

// An identity provider whose User-Agent is not valid UTF-8 (Go's server
// accepts header bytes 0x80-0xFF) still provisions, and the change is
// audited with the agent made valid: the event is written in the change's
// transaction, so a refused INSERT (PostgreSQL refuses such text) would
// have failed the provisioning itself.
func TestProvisioningWithInvalidUserAgentIsAudited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, map[string]any{"identity_provider": "okta"})
		h := http.Header{"Content-Type": {"application/scim+json"}, "Authorization": {"Bearer " + token},
			"User-Agent": {"Okta SCIM \xff\xfe"}}
		r := e.Do(http.MethodPost, "/v1/b2b/scim/"+id+"/Users", map[string]any{
			"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"}, "userName": "ada@acme.test", "active": true}, h, "", "")
		wantSCIM(t, r, 201, "")
		evs, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.SCIMProvisioning})
		if err != nil || len(evs) != 1 {
			t.Fatalf("provisioning events = %+v (%v), want one", evs, err)
		}
		if ua := evs[0].UserAgent; !utf8.ValidString(ua) || !strings.HasPrefix(ua, "Okta SCIM ") {
			t.Errorf("user agent = %q, want the sender's, made valid UTF-8", ua)
		}
	})
}
