package audit_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
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

// A login attempt whose User-Agent is not valid UTF-8 (Go's server accepts
// header bytes 0x80-0xFF) is still filed: PostgreSQL refuses such text,
// and an attempt that could not be filed would let a guesser hide from the
// log by sending one.
func TestLoginWithInvalidUserAgentIsAudited(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Do(http.MethodPost, "/sdk/v1/b2b/oauth/authenticate", map[string]any{"oauth_token": "bogus"},
			http.Header{"Origin": {apptest.Origin}, "User-Agent": {"Mozilla/5.0 \xff\xfe"}},
			e.Project.PublicToken, e.Project.PublicToken)
		if r.Status < 400 {
			t.Fatalf("a bogus oauth_token was accepted: %s", r.Raw)
		}
		logins := events(t, e, audit.Login)
		if len(logins) != 1 || logins[0].Outcome != audit.Failure || logins[0].Method != "oauth" {
			t.Fatalf("login events = %+v, want the failed oauth attempt; log:\n%s", logins, e.Logs())
		}
		if ua := logins[0].UserAgent; !utf8.ValidString(ua) || !strings.HasPrefix(ua, "Mozilla/5.0 ") {
			t.Errorf("user agent = %q, want the sender's, made valid UTF-8", ua)
		}
	})
}

// The log itself makes every text it stores valid UTF-8 without NULs, on
// both engines, so no caller that hands it raw request text can lose an
// event (PostgreSQL refuses both in a TEXT column).
func TestRecordCleansEveryText(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		l := audit.New(db, clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)))
		const bad = "x\xff\x00y"
		in := audit.Event{ProjectID: "project-test-1", Type: audit.Login, Outcome: audit.Failure, Method: bad,
			OrganizationID: bad, MemberID: bad, Actor: bad, IP: bad, UserAgent: bad, RequestID: bad,
			Details: map[string]any{"error_type": bad}}
		if err := l.Record(ctx, in); err != nil {
			t.Fatalf("record: %v", err)
		}
		if err := db.Tx(ctx, func(q store.Querier) error { return l.RecordIn(ctx, q, in) }); err != nil {
			t.Fatalf("record in a transaction: %v", err)
		}
		evs, err := l.List(ctx, audit.Filter{ProjectID: "project-test-1"})
		if err != nil || len(evs) != 2 {
			t.Fatalf("%d events listed (%v), want 2", len(evs), err)
		}
		for _, ev := range evs {
			detail, _ := ev.Details["error_type"].(string)
			texts := []string{ev.Method, ev.OrganizationID, ev.MemberID, ev.Actor, ev.IP, ev.UserAgent, ev.RequestID, detail}
			for _, s := range texts {
				if s != "x\uFFFDy" {
					t.Errorf("stored text = %q, want %q", s, "x\uFFFDy")
				}
			}
		}
	})
}
