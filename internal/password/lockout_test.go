package password_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/password"
)

const strong = "correct horse battery staple 42"

// lockEnv trusts the test client as a proxy, so each request names its
// client address in X-Forwarded-For.
func lockEnv(t *testing.T, fn func(t *testing.T, e *apptest.Env)) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1/32, ::1/128" }, fn)
}

func login(e *apptest.Env, ip, org, email, pw string) apptest.Resp {
	e.T.Helper()
	return e.Do(http.MethodPost, "/sdk/v1/b2b/passwords/authenticate", map[string]any{"organization_id": org,
		"email_address": email, "password": pw, "session_duration_minutes": 60},
		http.Header{"Origin": {apptest.Origin}, "X-Forwarded-For": {ip}}, e.Project.PublicToken, e.Project.PublicToken)
}

func isLocked(e *apptest.Env, org, email string) bool {
	e.T.Helper()
	r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address="+email, nil)
	m, _ := r.Body["member"].(map[string]any)
	return m["is_locked"] == true
}

func TestPasswordLockoutCannotDenyTheRealUser(t *testing.T) {
	lockEnv(t, func(t *testing.T, e *apptest.Env) {
		var mu sync.Mutex
		var slept []time.Duration
		e.App.Limiter.SetSleep(func(_ context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			slept = append(slept, d)
			e.Clock.Advance(d) // a wait takes its time
			return nil
		})
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", strong)
		const attacker, user = "203.0.113.66", "198.51.100.7"

		// A success clears the (email, address) count.
		for range password.EmailIPLockout.Limit - 1 {
			apptest.Want(t, login(e, attacker, org, "ada@acme.test", "nope"), 401, "unauthorized_credentials")
		}
		apptest.Want(t, login(e, attacker, org, "ada@acme.test", strong), 200, "")

		// Fifty concurrent guesses from one address: exactly the limit is
		// checked, the rest are refused before any check.
		codes := map[string]int{}
		var wg sync.WaitGroup
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := login(e, attacker, org, "ada@acme.test", "nope")
				mu.Lock()
				codes[r.ErrType()]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if codes["unauthorized_credentials"] != password.EmailIPLockout.Limit ||
			codes["user_lock_limit_reached"] != 50-password.EmailIPLockout.Limit {
			t.Fatalf("answers to a burst: %v", codes)
		}
		apptest.Want(t, login(e, attacker, org, "ada@acme.test", strong), 429, "user_lock_limit_reached")
		if !isLocked(e, org, "ada@acme.test") {
			t.Fatal("is_locked is false while the address is locked")
		}

		// The stranger's lock does not reach the member elsewhere.
		apptest.Want(t, login(e, user, org, "ada@acme.test", strong), 200, "")
		e.Clock.Advance(password.EmailIPLockout.Lock)
		if isLocked(e, org, "ada@acme.test") {
			t.Fatal("is_locked after the lock ran out")
		}
		apptest.Want(t, login(e, attacker, org, "ada@acme.test", strong), 200, "")

		// Guessing from many addresses only slows checks of the address
		// down; the real user still gets in.
		mu.Lock()
		slept = nil
		mu.Unlock()
		for i := range password.EmailSlowdown.Limit + 3 {
			apptest.Want(t, login(e, fmt.Sprintf("192.0.2.%d", i+1), org, "ada@acme.test", "nope"), 401, "unauthorized_credentials")
		}
		apptest.Want(t, login(e, user, org, "ada@acme.test", strong), 200, "")
		mu.Lock()
		if len(slept) != 4 || slept[3] != 4*password.EmailSlowdown.SlowStep {
			t.Fatalf("slow-downs %v", slept)
		}
		mu.Unlock()

		// Per client address: spraying many emails locks the address, for
		// every email, but no one else.
		e.CreateMember(org, "bob@acme.test")
		e.SetPassword(org, "bob@acme.test", strong)
		const sprayer = "203.0.113.99"
		for i := range password.IPLockout.Limit {
			apptest.Want(t, login(e, sprayer, org, fmt.Sprintf("guess%d@acme.test", i), "nope"), 401, "unauthorized_credentials")
		}
		apptest.Want(t, login(e, sprayer, org, "bob@acme.test", strong), 429, "user_lock_limit_reached")
		apptest.Want(t, login(e, user, org, "bob@acme.test", strong), 200, "")
		e.Clock.Advance(password.IPLockout.Lock)
		apptest.Want(t, login(e, sprayer, org, "bob@acme.test", strong), 200, "")

		// From an untrusted peer X-Forwarded-For is ignored: covered by
		// httpapi's tests; here every request came through the trusted
		// loopback, so the addresses above were the header's.
	})
}

// Every IPv6 host is handed at least a /64, so one guesser owns 2^64
// client addresses. Counted per full IPv6 address, it could take a fresh
// one after each (email, address) lock and guess one member's password
// without end (the per-email rule only slows it). The addresses of one
// /64 count as one client; another /64 is someone else.
func TestPasswordLockoutHoldsAcrossOneIPv6Prefix(t *testing.T) {
	lockEnv(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", strong)

		for i := range password.EmailIPLockout.Limit {
			apptest.Want(t, login(e, fmt.Sprintf("2001:db8:1:2::%x", i+1), org, "ada@acme.test", "nope"),
				401, "unauthorized_credentials")
		}
		apptest.Want(t, login(e, "2001:db8:1:2::ffff", org, "ada@acme.test", strong), 429, "user_lock_limit_reached")
		apptest.Want(t, login(e, "2001:db8:9:9::1", org, "ada@acme.test", strong), 200, "")
	})
}

// The TOTP lockout exists because a guesser there already holds the first
// factor, so knowing the password must not end it: a password change
// (here with the current password, all existing_password/reset needs)
// ends the address's password locks only. Otherwise whoever holds the
// password resets it, gets a fresh budget of codes, and repeats.
func TestPasswordChangeEndsPasswordLocksNotTheMFALockout(t *testing.T) {
	lockEnv(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid, secret, _ := e.TOTPMember()
		const email, attacker = "ada@secure.test", "203.0.113.66"
		e.SetPassword(org, email, strong)
		e.Clock.Advance(time.Minute) // past the code the fixture used
		pwIST := func(ip, pw string) string {
			d := login(e, ip, org, email, pw).Data()
			ist, _ := d["intermediate_session_token"].(string)
			if ist == "" || d["mfa_required"] == nil {
				t.Fatalf("password login did not stop at mfa_required: %v", d)
			}
			return ist
		}
		totp := func(ist, code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
				"code": code, "intermediate_session_token": ist, "session_duration_minutes": 60}, "")
		}
		good := apptest.TOTPAt(t, secret, e.Clock.Now())
		for i := 0; i < mfa.FailuresPerMember.Limit; i += mfa.AttemptsPerIST.Limit {
			ist := pwIST(attacker, strong)
			for range mfa.AttemptsPerIST.Limit {
				apptest.Want(t, totp(ist, apptest.WrongCode(good)), 404, "otp_code_not_found")
			}
		}
		apptest.Want(t, totp(pwIST(attacker, strong), good), 429, "user_lock_limit_reached")
		// And wrong passwords lock the (address, client address) pair.
		for range password.EmailIPLockout.Limit {
			apptest.Want(t, login(e, attacker, org, email, "nope"), 401, "unauthorized_credentials")
		}
		apptest.Want(t, login(e, attacker, org, email, strong), 429, "user_lock_limit_reached")

		// The guesser changes the password with the one they hold, from
		// another client address.
		r := e.SDK(http.MethodPost, "/b2b/passwords/existing_password/reset", map[string]any{"organization_id": org,
			"email_address": email, "existing_password": strong, "new_password": "Gravel-Mitten-Sonnet-29",
			"session_duration_minutes": 30}, "")
		if r.Status != 200 {
			t.Fatalf("existing reset: %s", r.Raw)
		}
		// The password lock ended; the second factor stays locked, and
		// is_locked says so.
		ist := pwIST(attacker, "Gravel-Mitten-Sonnet-29")
		apptest.Want(t, totp(ist, good), 429, "user_lock_limit_reached")
		if !isLocked(e, org, email) {
			t.Fatal("is_locked is false while the MFA lockout runs")
		}
		e.Clock.Advance(mfa.FailuresPerMember.Lock)
		if isLocked(e, org, email) {
			t.Fatal("is_locked after the MFA lockout ran out")
		}
	})
}
