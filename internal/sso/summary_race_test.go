package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// The organization's sso_active_connections and a member's
// sso_registrations are summaries rebuilt from the connections and
// registrations inside each change's transaction. Two changes at once
// must not each rebuild from a read made before the other committed, or
// the last one written drops the other's change. In each test the first
// transaction is a change (the real code, through export_test.go's
// hooks) held open while the second, through the API, runs.

// pendingConnection adds an OIDC connection, not configured (pending), to
// the organization and returns its id.
func (s *oidcEnv) pendingConnection(t *testing.T, name string) string {
	t.Helper()
	r := s.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{"display_name": name})
	apptest.Want(t, r, 200, "")
	return r.Body["connection"].(map[string]any)["connection_id"].(string)
}

// Two connection changes of one organization at once: the second one's
// rebuild of the organization's summary keeps the first one's change (a
// rename of the active connection, while the other, pending, one is
// renamed too).
func TestConcurrentConnectionChangesBothReachTheOrganizationSummary(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newOIDCEnv(t, e)
	second := s.pendingConnection(t, "Second")
	rename := func(q store.Querier) error {
		return e.App.SSO.RenameIn(t.Context(), q, e.Project.Project.ID, s.orgID, s.connID, "oidc", "Renamed")
	}
	var r apptest.Resp
	if _, err := storetest.Overlap(t, e.App.DB, rename, func() error {
		r = e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+second, map[string]any{"display_name": "Second, renamed"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, r, 200, "")
	r = e.Backend(http.MethodGet, "/v1/b2b/organizations/"+s.orgID, nil)
	active := r.Body["organization"].(map[string]any)["sso_active_connections"].([]any)
	if len(active) != 1 || active[0].(map[string]any)["display_name"] != "Renamed" {
		t.Fatalf("sso_active_connections = %v, want the renamed connection", active)
	}
}

// A connection's deletion while a member registers through another: the
// member's summary keeps the new registration and drops the deleted one.
func TestRegistrationDuringAConnectionsDeletionReachesTheMemberSummary(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newOIDCEnv(t, e)
	ctx, projectID := t.Context(), e.Project.Project.ID
	second := s.pendingConnection(t, "Second")
	mid := e.CreateMember(s.orgID, "lin@acme.test")
	if err := e.App.DB.Tx(ctx, func(q store.Querier) error {
		return e.App.SSO.RegisterIn(ctx, q, projectID, s.orgID, s.connID, mid, "first-sub")
	}); err != nil {
		t.Fatal(err)
	}
	register := func(q store.Querier) error {
		return e.App.SSO.RegisterIn(ctx, q, projectID, s.orgID, second, mid, "second-sub")
	}
	var r apptest.Resp
	if _, err := storetest.Overlap(t, e.App.DB, register, func() error {
		r = e.Backend(http.MethodDelete, "/v1/b2b/sso/"+s.orgID+"/connections/"+s.connID, nil)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, r, 200, "")
	regs := e.MemberByID(s.orgID, mid)["sso_registrations"].([]any)
	if len(regs) != 1 || regs[0].(map[string]any)["connection_id"] != second {
		t.Fatalf("sso_registrations = %v, want the one through %s", regs, second)
	}
}
