package mfa_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/mfa"
)

// TOTP codes are checked at the injected clock: one step of skew either
// way is accepted, two are not, and a code (or an older one) is never
// accepted twice.
func TestTOTPSkewAndReplay(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		secret, first, token := e.EnrollTOTPWithSession(org, "ada@acme.test", nil)

		// Stepping up from a session ends the old session.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, first), 404, "session_not_found")
		check := func(at time.Time) apptest.Resp {
			r := e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
				"code": apptest.TOTPAt(t, secret, at)}, token)
			if r.Status == 200 {
				token = r.Data()["session_token"].(string)
				apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "totp/authenticator_app/SECONDARY")
			}
			return r
		}
		const step = 30 * time.Second
		e.Clock.Advance(10 * time.Minute)
		now := e.Clock.Now()
		if r := check(now.Add(-step)); r.Status != 200 { // a phone 30 s behind
			t.Fatalf("code of the previous step: %s", r.Raw)
		}
		if r := check(now); r.Status != 200 {
			t.Fatalf("current code: %s", r.Raw)
		}
		apptest.Want(t, check(now), 404, "otp_code_not_found")              // reuse within its window
		apptest.Want(t, check(now.Add(-step)), 404, "otp_code_not_found")   // an older step after a newer one
		apptest.Want(t, check(now.Add(-2*step)), 404, "otp_code_not_found") // two steps behind
		apptest.Want(t, check(now.Add(2*step)), 404, "otp_code_not_found")  // two steps ahead
		if r := check(now.Add(step)); r.Status != 200 {                     // a phone 30 s ahead
			t.Fatalf("code of the next step: %s", r.Raw)
		}
		apptest.Want(t, check(now.Add(step)), 404, "otp_code_not_found")

		// Once the clock moves on, the next step's code is fresh again.
		e.Clock.Advance(2 * step)
		if r := check(e.Clock.Now()); r.Status != 200 {
			t.Fatalf("code after time moved on: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid, "code": "12345"}, token),
			400, "invalid_code")
	})
}

// Wrong TOTP codes lock the member out for a while, whoever guesses.
func TestTOTPLockout(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		secret, _, _ := e.EnrollTOTPWithSession(org, "ada@acme.test", nil)
		e.SetMFA(org, "REQUIRED_FOR_ALL")
		e.Clock.Advance(time.Minute)
		ist, _ := e.MFALogin(org, "ada@acme.test")
		auth := func(code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid, "code": code,
				"intermediate_session_token": ist}, "")
		}
		good := apptest.TOTPAt(t, secret, e.Clock.Now())
		// One login (IST) may try mfa.AttemptsPerIST codes.
		for range mfa.AttemptsPerIST.Limit {
			apptest.Want(t, auth(apptest.WrongCode(good)), 404, "otp_code_not_found")
		}
		apptest.Want(t, auth(good), 429, "user_lock_limit_reached")
		// Across logins the member's failures add up to the lockout.
		ist, _ = e.MFALogin(org, "ada@acme.test")
		for range mfa.FailuresPerMember.Limit - mfa.AttemptsPerIST.Limit {
			apptest.Want(t, auth(apptest.WrongCode(good)), 404, "otp_code_not_found")
		}
		ist, _ = e.MFALogin(org, "ada@acme.test")
		apptest.Want(t, auth(good), 429, "user_lock_limit_reached")
		e.Clock.Advance(10 * time.Minute)
		if r := auth(apptest.TOTPAt(t, secret, e.Clock.Now())); r.Status != 200 {
			// The IST outlived its 10 minutes: the lockout ended, the IST too.
			apptest.Want(t, r, 404, "intermediate_session_not_found")
		}
		ist, _ = e.MFALogin(org, "ada@acme.test")
		if r := auth(apptest.TOTPAt(t, secret, e.Clock.Now())); r.Status != 200 {
			t.Fatalf("after the lockout window: %s", r.Raw)
		}
	})
}

// Pending registrations expire; TOTP deletion (backend and self) removes
// the registration and its recovery codes; migrate imports a secret.
func TestTOTPExpiryDeleteAndMigrate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		token := e.EmailLogin(org, "ada@acme.test")["session_token"].(string)
		r := e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "expiration_minutes": 5}, token)
		secret := r.Data()["secret"].(string)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "expiration_minutes": 4}, token),
			400, "invalid_request")
		e.Clock.Advance(5 * time.Minute)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": apptest.TOTPAt(t, secret, e.Clock.Now())}, token), 404, "totp_not_found")

		// Enroll for real, then delete through the backend.
		secret, _, token = e.EnrollTOTPWithSession(org, "ada@acme.test", map[string]any{"set_mfa_enrollment": "enroll"})
		r = e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+mid+"/totp", nil)
		if m, _ := r.Body["member"].(map[string]any); r.Status != 200 || m["totp_registration_id"] != "" || m["default_mfa_method"] != "" {
			t.Fatalf("backend delete totp: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, token), 404, "totp_not_found")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": apptest.TOTPAt(t, secret, e.Clock.Now().Add(30*time.Second))}, token), 404, "totp_not_found")
		other := e.CreateOrg("other", "ALL_ALLOWED", nil)
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+other+"/members/"+mid+"/totp", nil), 404, "member_not_found")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+mid+"/nonsense", nil), 404, "route_not_found")

		// Migrate a secret from elsewhere (lower case with spaces, as
		// people copy them) with the member's old recovery codes.
		const imported = "jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp"
		r = e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
			"secret": imported, "recovery_codes": []string{"OLD-CODE-0001", "old-code-0002"}})
		if r.Status != 200 || r.Body["totp_registration_id"] == "" || r.Body["member"].(map[string]any)["default_mfa_method"] != "totp" {
			t.Fatalf("migrate: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
			"secret": "not base32!"}), 400, "invalid_request")
		e.SetMFA(org, "REQUIRED_FOR_ALL")
		e.Clock.Advance(time.Minute)
		ist, _ := e.MFALogin(org, "ada@acme.test")
		r = e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist,
			"code": apptest.TOTPAt(t, "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", e.Clock.Now())}, "")
		if r.Status != 200 {
			t.Fatalf("login with the migrated secret: %s", r.Raw)
		}
		ist, _ = e.MFALogin(org, "ada@acme.test")
		r = e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "recovery_code": "oldcode0002"}, "")
		if r.Status != 200 || r.Data()["recovery_codes_remaining"] != float64(1) {
			t.Fatalf("migrated recovery code: %s", r.Raw)
		}

		// Self deletion with the session.
		self := r.Data()["session_token"].(string)
		r = e.SDK(http.MethodDelete, "/b2b/organizations/members/deleteTOTP", nil, self)
		if r.Status != 200 || r.Data()["member"].(map[string]any)["totp_registration_id"] != "" {
			t.Fatalf("self delete totp: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/deleteTOTP", nil, ""), 401, "user_unauthenticated")
		// Nothing enrolled any more: the required login offers enrollment.
		if _, req := e.MFALogin(org, "ada@acme.test"); req["member_options"] != nil {
			t.Fatalf("member_options after deletion: %v", req)
		}
	})
}

// Wrong recovery codes count toward the member's MFA lockout as wrong
// TOTP codes do: after mfa.FailuresPerMember.Limit misses (spread over
// logins) even a right recovery code is refused user_lock_limit_reached
// until the lock ends, and the refused code is not spent by the refusal.
func TestRecoveryCodeLockout(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid, _, codes := e.TOTPMember()
		recover := func(ist, code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
				"recovery_code": code, "intermediate_session_token": ist, "session_duration_minutes": 60}, "")
		}
		e.Clock.Advance(time.Minute)
		ist, _ := e.MFALogin(org, "ada@secure.test")
		for i := range mfa.FailuresPerMember.Limit {
			if i == mfa.FailuresPerMember.Limit/2 {
				ist, _ = e.MFALogin(org, "ada@secure.test")
			}
			apptest.Want(t, recover(ist, "aaaa-bbbb-cccc"), 401, "unable_to_authenticate_recovery_code")
		}
		ist, _ = e.MFALogin(org, "ada@secure.test")
		apptest.Want(t, recover(ist, codes[0].(string)), 429, "user_lock_limit_reached")

		e.Clock.Advance(mfa.FailuresPerMember.Lock)
		ist, _ = e.MFALogin(org, "ada@secure.test")
		if r := recover(ist, codes[0].(string)); r.Status != 200 || r.Data()["recovery_codes_remaining"] != float64(len(codes)-1) {
			t.Fatalf("right code after the lock: %s", r.Raw)
		}
	})
}

// The sweeper removes TOTP enrollments left pending past their window, but
// never a verified registration, whose pending expires_at stays on its row:
// sweeping it would take the member's authenticator app away a day later.
func TestSweeperKeepsVerifiedTOTP(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid, secret, _ := e.TOTPMember()
		pending := e.CreateMember(org, "bob@secure.test")
		if r := e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": pending}); r.Status != 200 {
			t.Fatalf("pending enrollment: %s", r.Raw)
		}
		e.Clock.Advance(48 * time.Hour)
		if _, err := e.App.Sweeper().Once(context.Background()); err != nil {
			t.Fatal(err)
		}
		var verified, left int
		if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT
			COUNT(CASE WHEN member_id = $1 THEN 1 END), COUNT(CASE WHEN member_id = $2 THEN 1 END) FROM totp_registrations`,
			mid, pending).Scan(&verified, &left); err != nil {
			t.Fatal(err)
		}
		if verified != 1 || left != 0 {
			t.Fatalf("after the sweep: %d verified registrations (want 1), %d pending (want 0)", verified, left)
		}
		ist, _ := e.MFALogin(org, "ada@secure.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e.Clock.Now())})
		if tok, _ := r.Body["session_token"].(string); r.Status != 200 || tok == "" {
			t.Fatalf("the app no longer logs in after the sweep: %s", r.Raw)
		}
	})
}

// Re-enrolling an authenticator app from a fresh session: the old app
// keeps working while the new registration is pending; the first code
// from the new app verifies it, and from then on the old secret and the
// old recovery codes are refused while the new ones work. A login in
// progress cannot verify the pending registration.
func TestTOTPReEnrollmentReplacesTheOldApp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		create := func(token string) (secret, regID string, codes []any) {
			t.Helper()
			r := e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid}, token)
			if r.Status != 200 {
				t.Fatalf("totp create: %s", r.Raw)
			}
			return r.Data()["secret"].(string), r.Data()["totp_registration_id"].(string), r.Data()["recovery_codes"].([]any)
		}
		auth := func(token, secret string, at time.Time) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
				"code": apptest.TOTPAt(t, secret, at)}, token)
		}
		registration := func() any { return e.MemberByID(org, mid)["totp_registration_id"] }

		token := e.SessionFor(org, "ada@acme.test")
		oldSecret, oldReg, oldCodes := create(token)
		r := auth(token, oldSecret, e.Clock.Now())
		if r.Status != 200 || registration() != oldReg {
			t.Fatalf("first enrollment: %s", r.Raw)
		}
		token = r.Data()["session_token"].(string)

		e.Clock.Advance(time.Minute) // within stepup.Window
		newSecret, newReg, newCodes := create(token)
		if registration() != oldReg {
			t.Fatal("creating a registration changed the member's before it was verified")
		}
		// Until the new app is proven, the old one still steps up.
		r = auth(token, oldSecret, e.Clock.Now())
		if r.Status != 200 || registration() != oldReg {
			t.Fatalf("old app while the new one is pending: %s", r.Raw)
		}
		token = r.Data()["session_token"].(string)

		// A login in progress may not verify it (and gets no oracle for it).
		e.SetMFA(org, "REQUIRED_FOR_ALL")
		ist, _ := e.MFALogin(org, "ada@acme.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, newSecret, e.Clock.Now())}, ""), 404, "otp_code_not_found")
		if registration() != oldReg {
			t.Fatal("a login in progress verified the pending registration")
		}

		e.Clock.Advance(time.Minute)
		r = auth(token, newSecret, e.Clock.Now())
		if r.Status != 200 {
			t.Fatalf("a code from the new app: %s", r.Raw)
		}
		if got := apptest.MemberOf(r.Data())["totp_registration_id"]; got != newReg || registration() != newReg {
			t.Fatalf("registration after re-enrollment = %v, want %s", got, newReg)
		}
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "totp/authenticator_app/SECONDARY")
		token = r.Data()["session_token"].(string)

		// The old secret and its recovery codes are gone; the new ones work.
		e.Clock.Advance(time.Minute)
		apptest.Want(t, auth(token, oldSecret, e.Clock.Now()), 404, "otp_code_not_found")
		recover := func(code any) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
				"recovery_code": code}, token)
		}
		apptest.Want(t, recover(oldCodes[0]), 401, "unable_to_authenticate_recovery_code")
		if r := recover(newCodes[0]); r.Status != 200 {
			t.Fatalf("a new recovery code: %s", r.Raw)
		}
		if n := e.Count(`SELECT COUNT(*) FROM totp_registrations WHERE member_id = $1`, mid); n != 1 {
			t.Fatalf("%d registrations left, want the new one only", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM recovery_codes WHERE totp_registration_id = $1`, oldReg); n != 0 {
			t.Fatalf("%d recovery codes of the old registration left", n)
		}
	})
}

// Migrate refuses recovery codes that are the same code once normalised
// (case, spaces and dashes do not count when a code is typed back), as
// exact repeats are: stored twice, one single-use code would pass MFA
// twice. Nothing is stored by the refused request.
func TestTOTPMigrateRefusesRepeatedRecoveryCodes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid := e.MFAMember()
		for _, codes := range [][]string{{"abcd-efgh", "ABCDEFGH"}, {"k7mq-3xbe", "other", "k7mq-3xbe"}, {"ab cd", "a-b-c-d"}} {
			r := e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
				"secret": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", "recovery_codes": codes})
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "recovery_codes" {
				t.Fatalf("migrate %q: error_details = %v, want field recovery_codes: %s", codes, r.Body["error_details"], r.Raw)
			}
		}
		var n int
		if err := e.App.DB.Read().QueryRowContext(context.Background(),
			`SELECT COUNT(*) FROM totp_registrations WHERE member_id = $1`, mid).Scan(&n); err != nil || n != 0 {
			t.Fatalf("registrations after refused migrations: %d, %v", n, err)
		}
	})
}

// Migrating the member's current secret again keeps its replay guard: a
// code already accepted is still refused within its window, while a code
// of a later step is accepted.
func TestTOTPMigrateSameSecretKeepsReplayGuard(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid := e.MFAMember()
		const sec = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
		migrate := func(secret string) {
			t.Helper()
			if r := e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
				"secret": secret}); r.Status != 200 {
				t.Fatalf("migrate: %s", r.Raw)
			}
		}
		auth := func(code string) apptest.Resp {
			ist, _ := e.MFALogin(org, "ada@secure.test")
			return e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
				"intermediate_session_token": ist, "code": code}, "")
		}
		migrate(sec)
		code := apptest.TOTPAt(t, sec, e.Clock.Now())
		apptest.Want(t, auth(code), 200, "")
		apptest.Want(t, auth(code), 404, "otp_code_not_found")
		migrate(sec)
		apptest.Want(t, auth(code), 404, "otp_code_not_found")
		// The same secret as people copy it (lower case, spaces) is the same secret.
		migrate("jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp")
		apptest.Want(t, auth(code), 404, "otp_code_not_found")
		e.Clock.Advance(30 * time.Second)
		apptest.Want(t, auth(apptest.TOTPAt(t, sec, e.Clock.Now())), 200, "")
	})
}
