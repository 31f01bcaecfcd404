package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// CreateExternal locks the source's organization and connection before
// it reads the source, as every change of the source locks them before
// its dependents: a change of the source that commits around a create
// either is seen by it or sees it.

// The source's organization deleted while an external connection to one
// of its connections is created: Store.Delete's hook lists the
// dependents before the create commits, then the organization's row goes
// and the database cascades the new external connection away, leaving the
// target organization's sso_active_connections and default naming a
// connection that no longer exists.
func TestExternalCreateDuringSourceOrganizationDeletion(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newSAMLEnv(t, e, nil)
	target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
	ctx, projectID := t.Context(), e.Project.Project.ID
	var created apptest.Resp
	// Store.Delete, step by step: lock, hooks, then the row.
	_, err := storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		if err := e.App.DB.LockRow(ctx, q, "organizations", "organization_id", s.orgID); err != nil {
			return err
		}
		return e.App.SSO.BeforeOrganizationDelete(ctx, q, projectID, s.orgID, organization.Actor{})
	}, func() error {
		created = e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+target,
			map[string]any{"external_organization_id": s.orgID, "external_connection_id": s.connID})
		return nil
	}, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `DELETE FROM organizations WHERE organization_id = $1 AND project_id = $2`, s.orgID, projectID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("create during deletion: %d %s", created.Status, created.Raw)
	org := orgAnswer(t, e, target)
	if n := e.Count(`SELECT COUNT(*) FROM sso_connections WHERE organization_id = $1`, target); n != 0 {
		t.Fatalf("%d connections left in the target", n)
	}
	if active := org["sso_active_connections"].([]any); len(active) != 0 || org["sso_default_connection_id"] != nil {
		t.Fatalf("target summary names a deleted connection: sso_active_connections=%v sso_default_connection_id=%v",
			active, org["sso_default_connection_id"])
	}
}

// The source deactivated (its SSO URL cleared, through the real change
// path) while an external connection to it is created: the
// source's saveDependents runs before the create commits and misses it,
// and the create read the source as still active, so the external
// connection is stored active and offered by its organization while its
// source is pending.
func TestExternalCreateDuringSourceDeactivation(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newSAMLEnv(t, e, nil)
	target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
	ctx, projectID := t.Context(), e.Project.Project.ID
	var created apptest.Resp
	if _, err := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
		return e.App.SSO.DeactivateIn(ctx, q, projectID, s.orgID, s.connID)
	}, func() error {
		created = e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+target,
			map[string]any{"external_organization_id": s.orgID, "external_connection_id": s.connID})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("create during deactivation: %d %s", created.Status, created.Raw)
	if created.Status != 200 {
		return // refused: consistent
	}
	list := externals(t, e, target)
	org := orgAnswer(t, e, target)
	if len(list) != 1 || list[0].(map[string]any)["status"] != "pending" ||
		len(org["sso_active_connections"].([]any)) != 0 || org["sso_default_connection_id"] != nil {
		t.Fatalf("external connection of a pending source: %v; target offers %v (default %v)",
			list, org["sso_active_connections"], org["sso_default_connection_id"])
	}
}

// The source connection deleted while an external connection to it is
// created: the create's foreign key check waits for the deletion and then
// fails; the caller must get the catalogue's sso_connection_not_found (as
// when the source was already gone), not an internal error.
func TestExternalCreateDuringSourceDeletion(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newSAMLEnv(t, e, nil)
	target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
	ctx, projectID := t.Context(), e.Project.Project.ID
	var created apptest.Resp
	if _, err := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
		return e.App.SSO.RemoveIn(ctx, q, projectID, s.orgID, s.connID)
	}, func() error {
		created = e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+target,
			map[string]any{"external_organization_id": s.orgID, "external_connection_id": s.connID})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	org := orgAnswer(t, e, target)
	if len(org["sso_active_connections"].([]any)) != 0 {
		t.Fatalf("target offers %v after its source's deletion", org["sso_active_connections"])
	}
	if created.Status != 404 || created.ErrType() != "sso_connection_not_found" {
		t.Fatalf("create during the source's deletion: %d %s", created.Status, created.Raw)
	}
}

// Naming another project's organization and connection as a source locks
// nothing of that project: the create is refused with plain reads, not
// after waiting for (or holding) that project's rows.
func TestExternalCreateLocksNothingOfAnotherProject(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
	other := e.NewProject("Other")
	r := e.Do(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Theirs", "organization_slug": "theirs"},
		nil, other.Project.ID, other.Secret)
	apptest.Want(t, r, 200, "")
	theirs := r.Body["organization"].(map[string]any)["organization_id"].(string)
	r = e.Do(http.MethodPost, "/v1/b2b/sso/saml/"+theirs, map[string]any{"display_name": "Theirs"}, nil, other.Project.ID, other.Secret)
	apptest.Want(t, r, 200, "")
	conn := r.Body["connection"].(map[string]any)["connection_id"].(string)
	ctx := t.Context()
	var created apptest.Resp
	returned := false
	_, err := storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		// The other project's admin holds its organization's row.
		return e.App.DB.LockRow(ctx, q, "organizations", "organization_id", theirs)
	}, func() error {
		created = e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+target,
			map[string]any{"external_organization_id": theirs, "external_connection_id": conn})
		returned = true
		return nil
	}, func(store.Querier) error {
		if !returned {
			t.Error("the create waited for a row of another project")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, created, 404, "organization_not_found")
}
