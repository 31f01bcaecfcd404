package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// deleteOrg is an organization's deletion (its row; the rest cascades)
// inside q.
func deleteOrg(e *apptest.Env, orgID string) func(q store.Querier) error {
	return func(q store.Querier) error {
		_, err := q.ExecContext(e.T.Context(), `DELETE FROM organizations WHERE organization_id = $1`, orgID)
		return err
	}
}

// A member created while the organization's deletion is in flight: the
// request reads the organization, then its insert waits for the deletion
// and fails its foreign key once it commits. That was a 500; it is the
// organization_not_found a request sent a moment later gets, and nothing
// is written.
func TestMemberCreateInOrganizationDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	var r apptest.Resp
	delErr, _ := storetest.Overlap(t, e.App.DB, deleteOrg(e, orgID), func() error {
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+orgID+"/members",
			map[string]any{"email_address": "ada@acme.test"})
		return nil
	})
	if delErr != nil {
		t.Fatal(delErr)
	}
	apptest.Want(t, r, 404, "organization_not_found")
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE email_address = 'ada@acme.test'`); n != 0 {
		t.Fatalf("%d members written", n)
	}
}

// Every creation path (CreateMember: the member routes and invites;
// ProvisionMember: JIT provisioning at email, magic link, OAuth and SSO
// logins, SCIM) answers organization_not_found for an organization read
// before its deletion committed, on both engines (on SQLite the deletion
// holds the one writer while the request reads from the read pool).
func TestMemberInsertUnderDeletedOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		orgID := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		org, err := e.App.Orgs.Get(ctx, e.Project.Project.ID, orgID)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.App.DB.Tx(ctx, deleteOrg(e, orgID)); err != nil {
			t.Fatal(err)
		}
		env := e.Project.Project.Env
		err = e.App.DB.Tx(ctx, func(q store.Querier) error {
			_, err := e.App.Orgs.CreateMember(ctx, q, org, env, organization.NewMember{Email: "ada@acme.test",
				Status: organization.StatusActive})
			return err
		})
		if !apierr.Is(err, apierr.OrganizationNotFound) {
			t.Errorf("CreateMember: %v, want organization_not_found", err)
		}
		err = e.App.DB.Tx(ctx, func(q store.Querier) error {
			_, _, err := e.App.Orgs.ProvisionMember(ctx, q, org, env, organization.NewMember{Email: "ada@acme.test",
				Status: organization.StatusPending})
			return err
		})
		if !apierr.Is(err, apierr.OrganizationNotFound) {
			t.Errorf("ProvisionMember: %v, want organization_not_found", err)
		}
	})
}
