package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Two administrators delete the two certificates of an active connection
// at once, one each. Each deletion alone leaves one certificate, so both
// pass the rule if the second reads the connection before the first
// commits; the connection would then be left active with none (or, its
// config written back as read, with the one the first deleted). The
// first deletion (the real change, through export_race_test.go's hook)
// is held open while the second, through the API, runs: the second must
// wait, count one certificate, and be refused.
func TestConcurrentDeletionsKeepAnActiveConnectionsLastCertificate(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newSAMLEnv(t, e, nil)
	path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
	r := e.Backend(http.MethodPut, path, map[string]any{"x509_certificate": certPEM(t, "next idp")})
	apptest.Want(t, r, 200, "")
	ids := certIDs(r.Body["connection"].(map[string]any))
	if len(ids) != 2 {
		t.Fatalf("certificates: %s", r.Raw)
	}
	first := func(q store.Querier) error {
		return e.App.SSO.DeleteCertificateIn(t.Context(), q, e.Project.Project.ID, s.orgID, s.connID, ids[0])
	}
	var second apptest.Resp
	firstErr, _ := storetest.Overlap(t, e.App.DB, first, func() error {
		second = e.Backend(http.MethodDelete, path+"/verification_certificates/"+ids[1], nil)
		return nil
	})
	if firstErr != nil {
		t.Fatalf("first deletion: %v", firstErr)
	}
	apptest.Want(t, second, 400, "cannot_delete_last_sso_verification_key")
	c := samlConnection(t, e, s.orgID, s.connID)
	if left := certIDs(c); c["status"] != "active" || len(left) != 1 || left[0] != ids[1] {
		t.Fatalf("after both deletions: status %v, certificates %v; want active with %s", c["status"], left, ids[1])
	}
}
