package app_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/mfa"
)

// enrollTOTPWithSession logs in (no MFA required), creates a registration
// with the session, verifies it, and returns the secret, the login's
// session token and the stepped-up session token.
func (e *env) enrollTOTPWithSession(org, email string, extra map[string]any) (secret, before, token string) {
	e.t.Helper()
	d := e.emailLogin(org, email)
	token, _ = d["session_token"].(string)
	before = token
	if token == "" {
		e.t.Fatalf("login gave no session: %v", d)
	}
	r := e.sdk("/b2b/totp", map[string]any{"organization_id": d["organization"].(map[string]any)["organization_id"],
		"member_id": d["member_id"]}, token)
	if r.Status != 200 {
		e.t.Fatalf("totp create with a session: %s", r.Raw)
	}
	secret = r.data()["secret"].(string)
	body := map[string]any{"organization_id": org, "member_id": d["member_id"], "code": totpAt(e.t, secret, e.clock.Now())}
	for k, v := range extra {
		body[k] = v
	}
	r = e.sdk("/b2b/totp/authenticate", body, token)
	if r.Status != 200 {
		e.t.Fatalf("totp authenticate with a session: %s", r.Raw)
	}
	return secret, before, r.data()["session_token"].(string)
}

// TOTP codes are checked at the injected clock: one step of skew either
// way is accepted, two are not, and a code (or an older one) is never
// accepted twice.
func TestTOTPSkewAndReplay(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		e.alignClock()
		org := e.createOrg("acme", "ALL_ALLOWED")
		mid := e.createMember(org, "ada@acme.test")
		secret, first, token := e.enrollTOTPWithSession(org, "ada@acme.test", nil)

		// Stepping up from a session ends the old session.
		want(t, e.sdk("/b2b/sessions/authenticate", map[string]any{}, first), 404, "session_not_found")
		check := func(at time.Time) resp {
			r := e.sdk("/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
				"code": totpAt(t, secret, at)}, token)
			if r.Status == 200 {
				token = r.data()["session_token"].(string)
				wantFactors(t, r.data(), "otp/email/PRIMARY", "totp/authenticator_app/SECONDARY")
			}
			return r
		}
		const step = 30 * time.Second
		e.clock.Advance(10 * time.Minute)
		now := e.clock.Now()
		if r := check(now.Add(-step)); r.Status != 200 { // a phone 30 s behind
			t.Fatalf("code of the previous step: %s", r.Raw)
		}
		if r := check(now); r.Status != 200 {
			t.Fatalf("current code: %s", r.Raw)
		}
		want(t, check(now), 404, "otp_code_not_found")              // reuse within its window
		want(t, check(now.Add(-step)), 404, "otp_code_not_found")   // an older step after a newer one
		want(t, check(now.Add(-2*step)), 404, "otp_code_not_found") // two steps behind
		want(t, check(now.Add(2*step)), 404, "otp_code_not_found")  // two steps ahead
		if r := check(now.Add(step)); r.Status != 200 {             // a phone 30 s ahead
			t.Fatalf("code of the next step: %s", r.Raw)
		}
		want(t, check(now.Add(step)), 404, "otp_code_not_found")

		// Once the clock moves on, the next step's code is fresh again.
		e.clock.Advance(2 * step)
		if r := check(e.clock.Now()); r.Status != 200 {
			t.Fatalf("code after time moved on: %s", r.Raw)
		}
		want(t, e.sdk("/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid, "code": "12345"}, token),
			400, "invalid_code")
	})
}

// Wrong TOTP codes lock the member out for a while, whoever guesses.
func TestTOTPLockout(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		e.alignClock()
		org := e.createOrg("acme", "ALL_ALLOWED")
		mid := e.createMember(org, "ada@acme.test")
		secret, _, _ := e.enrollTOTPWithSession(org, "ada@acme.test", nil)
		e.setMFA(org, "REQUIRED_FOR_ALL")
		e.clock.Advance(time.Minute)
		ist, _ := e.mfaLogin(org, "ada@acme.test")
		auth := func(code string) resp {
			return e.sdk("/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid, "code": code,
				"intermediate_session_token": ist}, "")
		}
		good := totpAt(t, secret, e.clock.Now())
		// One login (IST) may try mfa.AttemptsPerIST codes.
		for range mfa.AttemptsPerIST.Limit {
			want(t, auth(wrongCode(good)), 404, "otp_code_not_found")
		}
		want(t, auth(good), 429, "user_lock_limit_reached")
		// Across logins the member's failures add up to the lockout.
		ist, _ = e.mfaLogin(org, "ada@acme.test")
		for range mfa.FailuresPerMember.Limit - mfa.AttemptsPerIST.Limit {
			want(t, auth(wrongCode(good)), 404, "otp_code_not_found")
		}
		ist, _ = e.mfaLogin(org, "ada@acme.test")
		want(t, auth(good), 429, "user_lock_limit_reached")
		e.clock.Advance(10 * time.Minute)
		if r := auth(totpAt(t, secret, e.clock.Now())); r.Status != 200 {
			// The IST outlived its 10 minutes: the lockout ended, the IST too.
			want(t, r, 404, "intermediate_session_not_found")
		}
		ist, _ = e.mfaLogin(org, "ada@acme.test")
		if r := auth(totpAt(t, secret, e.clock.Now())); r.Status != 200 {
			t.Fatalf("after the lockout window: %s", r.Raw)
		}
	})
}

// Pending registrations expire; TOTP deletion (backend and self) removes
// the registration and its recovery codes; migrate imports a secret.
func TestTOTPExpiryDeleteAndMigrate(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		e.alignClock()
		org := e.createOrg("acme", "ALL_ALLOWED")
		mid := e.createMember(org, "ada@acme.test")
		token := e.emailLogin(org, "ada@acme.test")["session_token"].(string)
		r := e.sdk("/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "expiration_minutes": 5}, token)
		secret := r.data()["secret"].(string)
		want(t, e.sdk("/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "expiration_minutes": 4}, token),
			400, "invalid_request")
		e.clock.Advance(5 * time.Minute)
		want(t, e.sdk("/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": totpAt(t, secret, e.clock.Now())}, token), 404, "totp_not_found")

		// Enroll for real, then delete through the backend.
		secret, _, token = e.enrollTOTPWithSession(org, "ada@acme.test", map[string]any{"set_mfa_enrollment": "enroll"})
		r = e.backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+mid+"/totp", nil)
		if m, _ := r.Body["member"].(map[string]any); r.Status != 200 || m["totp_registration_id"] != "" || m["default_mfa_method"] != "" {
			t.Fatalf("backend delete totp: %s", r.Raw)
		}
		want(t, e.sdkCall(http.MethodGet, "/b2b/recovery_codes", nil, token), 404, "totp_not_found")
		want(t, e.sdk("/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": totpAt(t, secret, e.clock.Now().Add(30*time.Second))}, token), 404, "totp_not_found")
		other := e.createOrg("other", "ALL_ALLOWED")
		want(t, e.backend(http.MethodDelete, "/v1/b2b/organizations/"+other+"/members/"+mid+"/totp", nil), 404, "member_not_found")
		want(t, e.backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+mid+"/nonsense", nil), 404, "route_not_found")

		// Migrate a secret from elsewhere (lower case with spaces, as
		// people copy them) with the member's old recovery codes.
		const imported = "jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp"
		r = e.backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
			"secret": imported, "recovery_codes": []string{"OLD-CODE-0001", "old-code-0002"}})
		if r.Status != 200 || r.Body["totp_registration_id"] == "" || r.Body["member"].(map[string]any)["default_mfa_method"] != "totp" {
			t.Fatalf("migrate: %s", r.Raw)
		}
		want(t, e.backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
			"secret": "not base32!"}), 400, "invalid_request")
		e.setMFA(org, "REQUIRED_FOR_ALL")
		e.clock.Advance(time.Minute)
		ist, _ := e.mfaLogin(org, "ada@acme.test")
		r = e.sdk("/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist,
			"code": totpAt(t, "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", e.clock.Now())}, "")
		if r.Status != 200 {
			t.Fatalf("login with the migrated secret: %s", r.Raw)
		}
		ist, _ = e.mfaLogin(org, "ada@acme.test")
		r = e.sdk("/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "recovery_code": "oldcode0002"}, "")
		if r.Status != 200 || r.data()["recovery_codes_remaining"] != float64(1) {
			t.Fatalf("migrated recovery code: %s", r.Raw)
		}

		// Self deletion with the session.
		self := r.data()["session_token"].(string)
		r = e.sdkCall(http.MethodDelete, "/b2b/organizations/members/deleteTOTP", nil, self)
		if r.Status != 200 || r.data()["member"].(map[string]any)["totp_registration_id"] != "" {
			t.Fatalf("self delete totp: %s", r.Raw)
		}
		want(t, e.sdkCall(http.MethodDelete, "/b2b/organizations/members/deleteTOTP", nil, ""), 401, "user_unauthenticated")
		// Nothing enrolled any more: the required login offers enrollment.
		if _, req := e.mfaLogin(org, "ada@acme.test"); req["member_options"] != nil {
			t.Fatalf("member_options after deletion: %v", req)
		}
	})
}

// Wrong recovery codes count toward the member's MFA lockout as wrong
// TOTP codes do: after mfa.FailuresPerMember.Limit misses (spread over
// logins) even a right recovery code is refused user_lock_limit_reached
// until the lock ends, and the refused code is not spent by the refusal.
func TestRecoveryCodeLockout(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		e.alignClock()
		org, mid, _, codes := e.totpMember()
		recover := func(ist, code string) resp {
			return e.sdk("/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
				"recovery_code": code, "intermediate_session_token": ist, "session_duration_minutes": 60}, "")
		}
		e.clock.Advance(time.Minute)
		ist, _ := e.mfaLogin(org, "ada@secure.test")
		for i := range mfa.FailuresPerMember.Limit {
			if i == mfa.FailuresPerMember.Limit/2 {
				ist, _ = e.mfaLogin(org, "ada@secure.test")
			}
			want(t, recover(ist, "aaaa-bbbb-cccc"), 404, "recovery_code_not_found")
		}
		ist, _ = e.mfaLogin(org, "ada@secure.test")
		want(t, recover(ist, codes[0].(string)), 429, "user_lock_limit_reached")

		e.clock.Advance(mfa.FailuresPerMember.Lock)
		ist, _ = e.mfaLogin(org, "ada@secure.test")
		if r := recover(ist, codes[0].(string)); r.Status != 200 || r.data()["recovery_codes_remaining"] != float64(len(codes)-1) {
			t.Fatalf("right code after the lock: %s", r.Raw)
		}
	})
}

// The sweeper removes TOTP enrollments left pending past their window, but
// never a verified registration, whose pending expires_at stays on its row:
// sweeping it would take the member's authenticator app away a day later.
func TestSweeperKeepsVerifiedTOTP(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org, mid, secret, _ := e.totpMember()
		pending := e.createMember(org, "bob@secure.test")
		if r := e.backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": pending}); r.Status != 200 {
			t.Fatalf("pending enrollment: %s", r.Raw)
		}
		e.clock.Advance(48 * time.Hour)
		if _, err := e.app.Sweeper().Once(context.Background()); err != nil {
			t.Fatal(err)
		}
		var verified, left int
		if err := e.app.DB.Read().QueryRowContext(context.Background(), `SELECT
			COUNT(CASE WHEN member_id = $1 THEN 1 END), COUNT(CASE WHEN member_id = $2 THEN 1 END) FROM totp_registrations`,
			mid, pending).Scan(&verified, &left); err != nil {
			t.Fatal(err)
		}
		if verified != 1 || left != 0 {
			t.Fatalf("after the sweep: %d verified registrations (want 1), %d pending (want 0)", verified, left)
		}
		ist, _ := e.mfaLogin(org, "ada@secure.test")
		r := e.backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": totpAt(t, secret, e.clock.Now())})
		if r.Status != 200 || r.Body["member_authenticated"] != true {
			t.Fatalf("the app no longer logs in after the sweep: %s", r.Raw)
		}
	})
}
