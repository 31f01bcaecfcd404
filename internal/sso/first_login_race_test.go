package sso_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// loggedIn redeems the token of a login's OIDC callback and returns the
// member it logs in, failing the test when the login did not succeed.
func loggedIn(t *testing.T, s *oidcEnv, cb apptest.Resp) string {
	t.Helper()
	if cb.Status != http.StatusFound {
		t.Fatalf("login: %d %s %s", cb.Status, cb.Header.Get("X-Latchkey-Error-Type"), cb.Raw)
	}
	r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, cb)}, "")
	apptest.Want(t, r, 200, "")
	return r.Data()["member_id"].(string)
}

// A first SSO login of a new address while another login of it (another
// tab, another method) creates its member: both find no member and both
// provision one. The second creation waits for the first and the login
// goes on as the member it created, not duplicate_member_email.
func TestSSOJITLoginWhileTheAddressIsProvisionedJoinsThatMember(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newOIDCEnv(t, e)
	user := &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}
	var cb apptest.Resp
	e.DuringProvisioning(t, s.orgID, "lin@acme.test", func() { cb = s.login(user, nil) })
	loggedIn(t, s, cb)
}

// Two first logins of one identity (two tabs, a double-submitted form)
// both find no registration for it and both register it. The second
// registration waits for the first and takes it over (an upsert, as the
// OAuth module's), so the login goes on as the member it names, as a
// later login would, even one other than the address's; an insert would
// hit the (connection_id, external_id) index and fail the login (500).
// The first transaction is the winning login's registration, as
// sso.finish writes it, held open while the second callback runs.
func TestOIDCFirstLoginsOfOneIdentityShareTheRegistration(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newOIDCEnv(t, e)
	lin, other := e.CreateMember(s.orgID, "lin@acme.test"), e.CreateMember(s.orgID, "other@acme.test")
	for i, owner := range []string{lin, other} {
		sub := fmt.Sprintf("oidc-sub-%d", i)
		winner := func(q store.Querier) error {
			_, err := q.ExecContext(t.Context(), `INSERT INTO sso_registrations (registration_id, project_id, organization_id,
				connection_id, member_id, external_id, sso_attributes, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,'{}',0,0)`,
				"registration-race-"+sub, e.Project.Project.ID, s.orgID, s.connID, owner, sub)
			return err
		}
		user := &mockoidc.MockUser{Subject: sub, Email: "lin@acme.test", EmailVerified: true}
		var cb apptest.Resp
		if _, err := storetest.Overlap(t, e.App.DB, winner, func() error { cb = s.login(user, nil); return nil }); err != nil {
			t.Fatal(err)
		}
		if got := loggedIn(t, s, cb); got != owner {
			t.Fatalf("%s logged in as %s, want %s", sub, got, owner)
		}
		if n := e.Count(`SELECT COUNT(*) FROM sso_registrations WHERE external_id = $1`, sub); n != 1 {
			t.Fatalf("%s: %d registrations, want the one", sub, n)
		}
	}
}
