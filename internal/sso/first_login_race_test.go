package sso_test

import (
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// raceLogin runs an OIDC login of user while first's transaction is held
// open (storetest.Overlap) and returns the member the login's token
// authenticates as, failing the test when the login does not succeed.
func raceLogin(t *testing.T, s *oidcEnv, first func(q store.Querier) error, user *mockoidc.MockUser) string {
	t.Helper()
	var cb apptest.Resp
	if _, err := storetest.Overlap(t, s.App.DB, first, func() error { cb = s.login(user, nil); return nil }); err != nil {
		t.Fatal(err)
	}
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
	e := apptest.New(t, storetest.Postgres(t), nil)
	s := newOIDCEnv(t, e)
	user := &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}
	raceLogin(t, s, func(q store.Querier) error { return e.ProvisionIn(q, s.orgID, "lin@acme.test") }, user)
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, s.orgID); n != 1 {
		t.Fatalf("%d members, want the one", n)
	}
}
