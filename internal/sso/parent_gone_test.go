package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A SAML or OIDC connection created while its organization's deletion is
// in flight: the request reads the organization, then its insert waits
// for the deletion and fails its foreign key once it commits. That was a
// 500; it is the organization_not_found a request sent a moment later
// gets, and nothing is written.
func TestConnectionCreateInOrganizationDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"saml", "oidc"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := apptest.New(t, apptest.Postgres(t), nil)
			orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
			var r apptest.Resp
			delErr, _ := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
				_, err := q.ExecContext(t.Context(), `DELETE FROM organizations WHERE organization_id = $1`, orgID)
				return err
			}, func() error {
				r = e.Backend(http.MethodPost, "/v1/b2b/sso/"+kind+"/"+orgID, map[string]any{})
				return nil
			})
			if delErr != nil {
				t.Fatal(delErr)
			}
			apptest.Want(t, r, 404, "organization_not_found")
			if n := e.Count(`SELECT COUNT(*) FROM sso_connections`); n != 0 {
				t.Fatalf("%d connections written", n)
			}
		})
	}
}
