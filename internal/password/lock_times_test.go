package password_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password"
)

// lockTimes returns a member answer's lock_created_at and lock_expires_at
// ("" when absent), failing on anything but an RFC 3339 string.
func lockTimes(t *testing.T, m map[string]any) (created, expires string) {
	t.Helper()
	get := func(k string) string {
		v, ok := m[k]
		if !ok {
			return ""
		}
		s, _ := v.(string)
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			t.Fatalf("%s = %#v, not an RFC 3339 time", k, v)
		}
		return s
	}
	return get("lock_created_at"), get("lock_expires_at")
}

// A lockout by wrong passwords shows on the member as when it began (the
// failure that reached the limit, not the window's first) and when it
// ends, on every backend member answer; none before or after it.
func TestMemberShowsWhenItsLockBeganAndEnds(t *testing.T) {
	lockEnv(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		id := e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", strong)
		const attacker, user = "203.0.113.66", "198.51.100.7"
		get := func() map[string]any { return e.MemberByID(org, id) }

		if c, x := lockTimes(t, get()); c != "" || x != "" {
			t.Fatalf("an unlocked member shows lock_created_at %q, lock_expires_at %q", c, x)
		}
		apptest.Want(t, login(e, attacker, org, "ada@acme.test", "nope"), 401, "unauthorized_credentials")
		e.Clock.Advance(5 * time.Minute)
		for range password.EmailIPLockout.Limit - 2 {
			apptest.Want(t, login(e, attacker, org, "ada@acme.test", "nope"), 401, "unauthorized_credentials")
		}
		if c, x := lockTimes(t, get()); c != "" || x != "" || get()["is_locked"] != false {
			t.Fatalf("one failure short of the limit: lock_created_at %q, lock_expires_at %q", c, x)
		}
		e.Clock.Advance(time.Minute)
		lockedAt := e.Clock.Now().UTC()
		apptest.Want(t, login(e, attacker, org, "ada@acme.test", "nope"), 401, "unauthorized_credentials")
		e.Clock.Advance(time.Minute)
		apptest.Want(t, login(e, attacker, org, "ada@acme.test", strong), 429, "user_lock_limit_reached")

		want := func(where string, m map[string]any) {
			t.Helper()
			c, x := lockTimes(t, m)
			ct, _ := time.Parse(time.RFC3339, c)
			xt, _ := time.Parse(time.RFC3339, x)
			if m["is_locked"] != true || !ct.Equal(lockedAt) || !xt.Equal(lockedAt.Add(password.EmailIPLockout.Lock)) {
				t.Fatalf("%s: is_locked %v, lock_created_at %q, lock_expires_at %q; want %s to %s", where, m["is_locked"], c, x,
					lockedAt.Format(time.RFC3339), lockedAt.Add(password.EmailIPLockout.Lock).Format(time.RFC3339))
			}
		}
		want("get", get())
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=ada@acme.test", nil)
		want("get by email", r.Body["member"].(map[string]any))
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{org}})
		apptest.Want(t, r, 200, "")
		want("search", r.Body["members"].([]any)[0].(map[string]any))
		// The real user still logs in from elsewhere, and the session
		// check's member (loaded now) carries the lock too.
		apptest.Want(t, login(e, user, org, "ada@acme.test", strong), 200, "")
		r = e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": e.SessionFor(org, "ada@acme.test")})
		apptest.Want(t, r, 200, "")
		want("session check", r.Body["member"].(map[string]any))

		e.Clock.Advance(password.EmailIPLockout.Lock)
		if m := get(); m["is_locked"] != false {
			t.Fatal("is_locked after the lock ran out")
		}
		if c, x := lockTimes(t, get()); c != "" || x != "" {
			t.Fatalf("after the lock: lock_created_at %q, lock_expires_at %q", c, x)
		}
	})
}
