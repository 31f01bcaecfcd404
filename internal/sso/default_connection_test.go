package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// sso_default_connection_id names one of the organization's own
// connections, on both faces: another organization's or an unknown id is
// invalid_sso_default_connection_id, and the default is left as it was. A
// connection still pending may be the default (the vendor's Admin Portal
// offers it), and stays so through other connections' changes until it is
// deleted, when the oldest active connection takes over.
func TestDefaultConnectionMustBeOwn(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		second := s.addSAML(t, s.orgID, "Second")
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+s.orgID, map[string]any{"display_name": "Unfinished"})
		apptest.Want(t, r, 200, "")
		pending := r.Body["connection"].(map[string]any)["connection_id"].(string)
		other := e.CreateOrg("other", "ALL_ALLOWED", nil)
		theirs := s.addSAML(t, other, "Theirs")

		orgPath := "/v1/b2b/organizations/" + s.orgID
		defaultIs := func(want any) {
			t.Helper()
			o := orgAnswer(t, e, s.orgID)
			if o["sso_default_connection_id"] != want {
				t.Fatalf("sso_default_connection_id = %v, want %v", o["sso_default_connection_id"], want)
			}
		}
		defaultIs(s.connID) // the first active connection became the default
		for _, id := range []string{theirs, "saml-connection-test-nope"} {
			apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"sso_default_connection_id": id}), 400, "invalid_sso_default_connection_id")
		}
		defaultIs(s.connID)
		apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"sso_default_connection_id": second}), 200, "")
		defaultIs(second)
		apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"sso_default_connection_id": ""}), 200, "")
		defaultIs(nil)

		// A pending connection: chosen, then replaced by an active one when
		// another connection changes while it is still pending.
		apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"sso_default_connection_id": pending}), 200, "")
		defaultIs(pending)
		s.addSAML(t, s.orgID, "Third")
		if d := orgAnswer(t, e, s.orgID)["sso_default_connection_id"]; d == nil || d == pending {
			t.Fatalf("after another connection's change the default is %v, want an active connection", d)
		}
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/sso/"+s.orgID+"/connections/"+pending, nil), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"sso_default_connection_id": ""}), 200, "")

		// The SDK face: an admin's own organization, the same rule.
		e.CreateAdmin(s.orgID, "boss@acme.test")
		boss := e.SessionFor(s.orgID, "boss@acme.test")
		for _, id := range []string{theirs, pending} {
			apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"sso_default_connection_id": id}, boss),
				400, "invalid_sso_default_connection_id")
		}
		defaultIs(nil)
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"sso_default_connection_id": s.connID}, boss), 200, "")
		defaultIs(s.connID)
	})
}
