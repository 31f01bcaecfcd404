package audit_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
)

func events(t *testing.T, e *apptest.Env, typ string) []audit.Event {
	t.Helper()
	evs, err := e.App.Audit.List(context.Background(), audit.Filter{ProjectID: e.Project.Project.ID, Type: typ})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// Logins, failures and factor changes made through the API land in the
// audit log with their subject and origin, and never with a secret.
func TestLoginsAndFactorChangesAreAudited(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/login_or_signup",
			map[string]any{"email_address": "ada@acme.test", "organization_id": org}, ""), 200, "")
		_, codes := e.LastMail("ada@acme.test")
		wrong := "000000"
		if codes[0] == wrong {
			wrong = "111111"
		}
		r := e.SDK(http.MethodPost, "/b2b/otps/email/authenticate",
			map[string]any{"email_address": "ada@acme.test", "organization_id": org, "code": wrong}, "")
		if r.Status < 400 {
			t.Fatalf("wrong code accepted: %s", r.Raw)
		}
		wrongType := r.ErrType()
		e.Clock.Advance(time.Second) // events list newest first, by time
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/authenticate",
			map[string]any{"email_address": "ada@acme.test", "organization_id": org, "code": codes[0]}, ""), 200, "")

		logins := events(t, e, audit.Login)
		if len(logins) != 2 {
			t.Fatalf("login events = %+v, want a failure and a success", logins)
		}
		ok, bad := logins[0], logins[1] // newest first
		if ok.Outcome != audit.Success || ok.Method != "email_otp" || ok.MemberID != mid || ok.OrganizationID != org ||
			ok.Actor != "sdk" || ok.IP == "" || ok.RequestID == "" {
			t.Errorf("success event = %+v", ok)
		}
		if bad.Outcome != audit.Failure || bad.Method != "email_otp" || bad.Details["error_type"] != wrongType {
			t.Errorf("failure event = %+v", bad)
		}

		r = e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
			"secret": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"})
		apptest.Want(t, r, 200, "")
		changes := events(t, e, audit.FactorChange)
		if len(changes) != 1 || changes[0].Method != "totp_migrated" || changes[0].MemberID != mid || changes[0].Actor != "backend" {
			t.Fatalf("factor change events = %+v", changes)
		}
		// A refused change is not a change.
		e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid, "secret": "nope"})
		if n := len(events(t, e, audit.FactorChange)); n != 1 {
			t.Fatalf("a refused change was audited: %d events", n)
		}
		// The backend's one deletion route for a member's factors records
		// what it deleted as factor_deleted.
		e.Clock.Advance(time.Second)
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+mid+"/totp", nil), 200, "")
		if changes := events(t, e, audit.FactorChange); len(changes) != 2 || changes[0].Method != "factor_deleted" || changes[0].MemberID != mid {
			t.Fatalf("factor change events after the deletion = %+v", changes)
		}
		// Another project's log is its own.
		other := e.NewProject("Other")
		if evs, _ := e.App.Audit.List(context.Background(), audit.Filter{ProjectID: other.Project.ID}); len(evs) != 0 {
			t.Fatalf("other project sees %d events", len(evs))
		}
	})
}

// Repeated wrong codes end in a refusal that is logged as a lockout.
func TestLockoutIsAudited(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/login_or_signup",
			map[string]any{"email_address": "ada@acme.test", "organization_id": org}, ""), 200, "")
		locked := false
		for i := 0; i < 40 && !locked; i++ {
			r := e.SDK(http.MethodPost, "/b2b/otps/email/authenticate",
				map[string]any{"email_address": "ada@acme.test", "organization_id": org, "code": "00000" + string(rune('0'+i%10))}, "")
			locked = r.Status == http.StatusTooManyRequests
		}
		if !locked {
			t.Skip("no attempt limit reached within 40 wrong codes on this route")
		}
		if evs := events(t, e, audit.Lockout); len(evs) == 0 || evs[0].Method != "email_otp" || evs[0].Outcome != audit.Failure {
			t.Fatalf("lockout events = %+v", evs)
		}
	})
}

// A login that still owes a second factor is filed under its member and
// organization with mfa_required, on both faces (the subject comes from
// the answer's payload, not from its JSON).
func TestMFAPendingLoginIsAudited(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"})
		mid := e.CreateMember(org, "ada@acme.test")
		login := func(send, check func(path string, body map[string]any) apptest.Resp) {
			t.Helper()
			apptest.Want(t, send("/b2b/otps/email/login_or_signup", map[string]any{"email_address": "ada@acme.test", "organization_id": org}), 200, "")
			_, codes := e.LastMail("ada@acme.test")
			r := check("/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@acme.test", "organization_id": org, "code": codes[0]})
			apptest.Want(t, r, 200, "")
		}
		sdk := func(path string, body map[string]any) apptest.Resp { return e.SDK(http.MethodPost, path, body, "") }
		backend := func(path string, body map[string]any) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1"+path, body)
		}
		login(sdk, sdk)
		e.Clock.Advance(time.Second)
		login(backend, backend)
		logins := events(t, e, audit.Login)
		if len(logins) != 2 {
			t.Fatalf("login events = %+v, want two", logins)
		}
		for _, ev := range logins {
			if ev.Outcome != audit.Success || ev.MemberID != mid || ev.OrganizationID != org || ev.Details["mfa_required"] != true {
				t.Errorf("MFA-pending login event = %+v", ev)
			}
		}
		if logins[0].Actor != "backend" || logins[1].Actor != "sdk" {
			t.Errorf("actors = %s, %s; want backend then sdk (newest first)", logins[0].Actor, logins[1].Actor)
		}
	})
}
