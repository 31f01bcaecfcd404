package mfa_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// unprovenFor stands for the OAuth module's organization.UnprovenAccess:
// it reports access ended for one member only.
type unprovenFor string

func (u unprovenFor) AddressVerified(_ context.Context, _ store.Querier, v organization.Verified) (bool, error) {
	return v.MemberID == string(u), nil
}

// A first proof of an address that ended unproven access removes the
// member's MFA factors (the authenticator app, its recovery codes, the
// default method) in the proving login's transaction, and records the
// removal: the login asks the owner to enrol (mfa_required without
// member_options). A first proof that ended nothing leaves the factors:
// the other member's login asks for his app.
func TestProofEndingUnprovenAccessRemovesMFAFactors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, ada := e.MFAMember()
		bob := e.CreateMember(org, "bob@secure.test")
		for _, mid := range []string{ada, bob} {
			r := e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
				"secret": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"})
			apptest.Want(t, r, 200, "")
		}
		e.App.Orgs.AddUnprovenAccess(unprovenFor(ada))

		_, req := e.MFALogin(org, "ada@secure.test")
		if req["member_options"] != nil {
			t.Fatalf("ada's login asks for the removed factors: %v", req)
		}
		m := e.MemberByID(org, ada)
		if m["totp_registration_id"] != "" || m["default_mfa_method"] != "" {
			t.Fatalf("ada after the proof: %v", m)
		}
		var left int
		if err := e.App.DB.Read().QueryRowContext(t.Context(), `SELECT (SELECT COUNT(*) FROM recovery_codes WHERE member_id = $1)
			+ (SELECT COUNT(*) FROM totp_registrations WHERE member_id = $1)`, ada).Scan(&left); err != nil || left != 0 {
			t.Fatalf("registrations and recovery codes left: %d %v", left, err)
		}
		events, err := e.App.Audit.List(t.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.FactorChange})
		if err != nil {
			t.Fatal(err)
		}
		var removals []audit.Event
		for _, ev := range events {
			if ev.Method == mfa.TOTPDeleted {
				removals = append(removals, ev)
			}
		}
		if len(removals) != 1 || removals[0].MemberID != ada || removals[0].OrganizationID != org ||
			removals[0].Details["reason"] != "email_verified_without_provider" || removals[0].Details["recovery_codes"] != float64(10) {
			t.Fatalf("audit: %+v", events)
		}

		_, req = e.MFALogin(org, "bob@secure.test")
		if opts, _ := req["member_options"].(map[string]any); opts == nil || opts["totp_registration_id"] != e.MemberByID(org, bob)["totp_registration_id"] {
			t.Fatalf("bob's login: %v", req)
		}
	})
}
