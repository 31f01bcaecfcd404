package session_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// Every rule of the hot cache: a change is seen by the next check on the
// process that made it, and within a second on another process sharing the
// database (a replica, or the CLI while a server runs). Each test warms
// the cache first, so a missing invalidation shows as a stale answer.

// check authenticates a session token (or JWT) on e's backend face.
func check(e *apptest.Env, token, jwt string) apptest.Resp {
	return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token, "session_jwt": jwt})
}

// sdkCheck authenticates a session token on e's SDK face; a success
// answer's payload is put where check has it, so rules read both alike.
func sdkCheck(e *apptest.Env, token string) apptest.Resp {
	r := e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token)
	if r.Status == 200 {
		r.Body = r.Data()
	}
	return r
}

// within fails unless ok holds within d; it is polled, and checked once
// more at the deadline.
func within(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if ok() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sameProcess asserts that ok holds at once: the next check after a write
// on the same process sees it.
func sameProcess(t *testing.T, what string, ok func() bool) {
	t.Helper()
	if !ok() {
		t.Fatalf("%s: the next check on the same process did not see it", what)
	}
}

type rule struct {
	name   string
	change func(t *testing.T, by *apptest.Env, org, member string, token string)
	// seen reports whether the check answer shows the change.
	seen func(r apptest.Resp) bool
}

// shown reports whether a check answer shows the change, in the answer and
// in the session JWT it carries: a JWT the server reuses must not keep the
// roles or slug from before the change.
func (rl rule) shown(r apptest.Resp) bool {
	return rl.seen(r) && jwtAgrees(r)
}

// jwtAgrees reports whether a successful answer's session_jwt carries the
// roles, organization slug and custom claims of its member_session (true
// for a refusal).
func jwtAgrees(r apptest.Resp) bool {
	if r.Status != 200 {
		return true
	}
	ms, _ := r.Body["member_session"].(map[string]any)
	token, _ := r.Body["session_jwt"].(string)
	var claims struct {
		Session map[string]any `json:"https://stytch.com/session"`
		Org     map[string]any `json:"https://stytch.com/organization"`
	}
	var all map[string]any
	if ms == nil || jwtPayload(token, &claims) != nil || jwtPayload(token, &all) != nil {
		return false
	}
	custom, _ := ms["custom_claims"].(map[string]any)
	for k, v := range custom {
		if !reflect.DeepEqual(all[k], v) {
			return false
		}
	}
	return reflect.DeepEqual(claims.Session["roles"], ms["roles"]) && claims.Org["slug"] == ms["organization_slug"]
}

func sessionRules() []rule {
	gone := func(r apptest.Resp) bool { return r.Status == 404 && r.ErrType() == "session_not_found" }
	return []rule{
		{"revoked session", func(t *testing.T, by *apptest.Env, _, member, token string) {
			apptest.Want(t, by.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": token}), 200, "")
		}, gone},
		{"revoked by member", func(t *testing.T, by *apptest.Env, _, member, _ string) {
			apptest.Want(t, by.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"member_id": member}), 200, "")
		}, gone},
		{"deleted member", func(t *testing.T, by *apptest.Env, org, member, _ string) {
			apptest.Want(t, by.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+member, nil), 200, "")
		}, gone},
		// An address changed without proof ends the member's sessions
		// (organization.AddressHolder): they were started by whoever held
		// the old address.
		{"member's address changed", func(t *testing.T, by *apptest.Env, org, member, _ string) {
			apptest.Want(t, by.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+member,
				map[string]any{"email_address": "lovelace@acme.test"}), 200, "")
		}, gone},
		{"changed member", func(t *testing.T, by *apptest.Env, org, member, _ string) {
			apptest.Want(t, by.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+member,
				map[string]any{"name": "Ada L.", "is_admin": true}), 200, "")
		}, func(r apptest.Resp) bool {
			m, _ := r.Body["member"].(map[string]any)
			ms, _ := r.Body["member_session"].(map[string]any)
			roles, _ := ms["roles"].([]any)
			return r.Status == 200 && m["name"] == "Ada L." && len(roles) == 2 && roles[1] == "stytch_admin"
		}},
		{"changed organization", func(t *testing.T, by *apptest.Env, org, _, _ string) {
			apptest.Want(t, by.Backend(http.MethodPut, "/v1/b2b/organizations/"+org,
				map[string]any{"organization_slug": "acme-two", "organization_name": "Acme Two"}), 200, "")
		}, func(r apptest.Resp) bool {
			o, _ := r.Body["organization"].(map[string]any)
			ms, _ := r.Body["member_session"].(map[string]any)
			return r.Status == 200 && o["organization_name"] == "Acme Two" && ms["organization_slug"] == "acme-two"
		}},
		// A member's roles also come from the organization: its implicit
		// roles by email domain.
		{"organization's implicit roles", func(t *testing.T, by *apptest.Env, org, _, _ string) {
			apptest.Want(t, by.Backend(http.MethodPut, "/v1/b2b/organizations/"+org,
				map[string]any{"rbac_email_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "domain": "acme.test"}}}), 200, "")
		}, func(r apptest.Resp) bool {
			ms, _ := r.Body["member_session"].(map[string]any)
			roles, _ := ms["roles"].([]any)
			return r.Status == 200 && slices.Contains(roles, any("stytch_admin"))
		}},
		// One password serves an address in every organization, so setting
		// it through another organization, which writes no row of this
		// member, must still show in this member's member_password_id.
		{"password set through another organization", func(t *testing.T, by *apptest.Env, _, _, _ string) {
			other := by.CreateOrg("globex", "ALL_ALLOWED", nil)
			apptest.Want(t, by.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": other,
				"email_address": "ada@acme.test", "hash_type": "bcrypt",
				"hash": "$2a$04$WkBE3YGKfKkK5HlvTsc7f.uXkDvTzYAiGh.i1Jb5g9uDexXkvcwCG"}), 200, "")
		}, func(r apptest.Resp) bool {
			m, _ := r.Body["member"].(map[string]any)
			return r.Status == 200 && m["member_password_id"] != ""
		}},
		// Custom claims set on another process reach this one's answers
		// and the JWTs it reuses (jwtAgrees compares them too).
		{"custom claims set", func(t *testing.T, by *apptest.Env, _, _, token string) {
			apptest.Want(t, by.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
				"session_custom_claims": map[string]any{"plan": "pro"}}), 200, "")
		}, func(r apptest.Resp) bool {
			ms, _ := r.Body["member_session"].(map[string]any)
			claims, _ := ms["custom_claims"].(map[string]any)
			return r.Status == 200 && claims["plan"] == "pro"
		}},
		{"deleted organization", func(t *testing.T, by *apptest.Env, org, _, _ string) {
			apptest.Want(t, by.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org, nil), 200, "")
		}, gone},
	}
}

// warm checks the session twice by token and by JWT, so the answer is
// cached, and fails if the check already shows the change.
func warm(t *testing.T, e *apptest.Env, rl rule, token, jwt string) {
	t.Helper()
	for range 2 {
		for _, r := range []apptest.Resp{check(e, token, ""), check(e, "", jwt), sdkCheck(e, token)} {
			apptest.Want(t, r, 200, "")
			if rl.seen(r) {
				t.Fatalf("%s: shown before the change", rl.name)
			}
		}
	}
}

func TestCachedSessionSeesChangesOnSameProcess(t *testing.T) {
	for _, rl := range sessionRules() {
		t.Run(rl.name, func(t *testing.T) {
			t.Parallel()
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
				token, jwt, member := e.Login(org, "ada@acme.test")
				warm(t, e, rl, token, jwt)
				rl.change(t, e, org, member, token)
				sameProcess(t, rl.name+" (token)", func() bool { return rl.shown(check(e, token, "")) })
				sameProcess(t, rl.name+" (jwt)", func() bool { return rl.shown(check(e, "", jwt)) })
				sameProcess(t, rl.name+" (SDK)", func() bool { return rl.shown(sdkCheck(e, token)) })
			})
		})
	}
}

func TestCachedSessionSeesChangesOfOtherProcessWithinASecond(t *testing.T) {
	for _, rl := range sessionRules() {
		t.Run(rl.name, func(t *testing.T) {
			t.Parallel()
			apptest.EachPair(t, func(t *testing.T, e1, e2 *apptest.Env) {
				org := e1.CreateOrg("acme", "ALL_ALLOWED", nil)
				token, jwt, member := e1.Login(org, "ada@acme.test")
				warm(t, e1, rl, token, jwt)
				rl.change(t, e2, org, member, token)
				within(t, time.Second, rl.name+" (token)", func() bool { return rl.shown(check(e1, token, "")) })
				within(t, time.Second, rl.name+" (jwt)", func() bool { return rl.shown(check(e1, "", jwt)) })
				within(t, time.Second, rl.name+" (SDK)", func() bool { return rl.shown(sdkCheck(e1, token)) })
			})
		})
	}
}

// TestCLIChangesReachRunningServer covers what an operator changes with
// the CLI (another process on the same database) while a server runs:
// signing keys, origins and project settings are cached by the server and
// must take effect within a second.
func TestCLIChangesReachRunningServer(t *testing.T) {
	apptest.EachPair(t, func(t *testing.T, server, cli *apptest.Env) {
		ctx := context.Background()
		pid := server.Project.Project.ID
		keys := func() int {
			r := server.Get("/v1/b2b/sessions/jwks/" + pid)
			ks, _ := r.Body["keys"].([]any)
			return len(ks)
		}
		if n := keys(); n != 1 {
			t.Fatalf("jwks has %d keys before rotation", n)
		}
		if _, err := cli.App.Projects.RotateSigningKey(ctx, pid); err != nil {
			t.Fatal(err)
		}
		within(t, time.Second, "rotated signing key in the JWKS", func() bool { return keys() == 2 })

		const other = "http://admin.customer.test"
		// A session check without a session: unauthorized_credentials
		// once the origin may call, bad_domain_for_stytch_sdk before.
		fromOther := func() string {
			return server.Do(http.MethodPost, "/sdk/v1/b2b/sessions/authenticate", map[string]any{},
				http.Header{"Origin": {other}}, server.Project.PublicToken, server.Project.PublicToken).ErrType()
		}
		if got := fromOther(); got != "bad_domain_for_stytch_sdk" {
			t.Fatalf("unregistered origin answered %q", got)
		}
		if err := cli.App.Projects.AddOrigin(ctx, pid, other); err != nil {
			t.Fatal(err)
		}
		within(t, time.Second, "added origin", func() bool { return fromOther() == "unauthorized_credentials" })

		watermark := func() bool {
			r := server.SDK(http.MethodGet, "/projects/bootstrap/"+server.Project.PublicToken, nil, "")
			return r.Data()["disable_sdk_watermark"] == true
		}
		if watermark() {
			t.Fatal("watermark disabled before the change")
		}
		off := true
		if _, err := cli.App.Projects.Update(ctx, pid, project.Update{DisableSDKWatermark: &off}); err != nil {
			t.Fatal(err)
		}
		within(t, time.Second, "changed project setting", watermark)
	})
}

// A secret rotated out with the CLI, as a leak calls for, stops working on a
// running server within a second, and the new one starts: the server keeps
// the secrets' hashes in memory.
func TestCLISecretRotationReachesRunningServer(t *testing.T) {
	apptest.EachPair(t, func(t *testing.T, server, cli *apptest.Env) {
		pid := server.Project.Project.ID
		orgs := func(secret string) int {
			return server.Do(http.MethodPost, "/v1/b2b/organizations/search", map[string]any{}, nil, pid, secret).Status
		}
		for range 2 {
			if got := orgs(server.Project.Secret); got != 200 {
				t.Fatalf("the project's secret answered %d", got)
			}
		}
		_, fresh, err := cli.App.Projects.RotateSecret(context.Background(), pid, false)
		if err != nil {
			t.Fatal(err)
		}
		within(t, time.Second, "old secret refused", func() bool { return orgs(server.Project.Secret) == 401 })
		within(t, time.Second, "new secret accepted", func() bool { return orgs(fresh) == 200 })
	})
}

// Login sends read their organization from the same cache (see
// organization.Store.UseCache), so the organization's JIT policy and its
// deletion follow the same rules: the next send on the process that made
// the change, within a second on another.
func TestLoginSendsSeeOrganizationChanges(t *testing.T) {
	send := func(e *apptest.Env, org, email string) apptest.Resp {
		return e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup",
			map[string]any{"email_address": email, "organization_id": org})
	}
	closeJIT := func(t *testing.T, by *apptest.Env, org string) {
		apptest.Want(t, by.Backend(http.MethodPut, "/v1/b2b/organizations/"+org,
			map[string]any{"email_jit_provisioning": "NOT_ALLOWED"}), 200, "")
	}
	// Each poll asks for a new address: a poll that still saw the open
	// policy made its address a member, whom a closed policy still lets in.
	refused := func(e *apptest.Env, org string) func() bool {
		n := 0
		return func() bool {
			n++
			return send(e, org, fmt.Sprintf("eve%d@acme.test", n)).ErrType() == "email_jit_provisioning_not_allowed"
		}
	}
	deleted := func(e *apptest.Env, org string) func() bool {
		return func() bool { return send(e, org, "ada@acme.test").ErrType() == "organization_not_found" }
	}
	t.Run("same process", func(t *testing.T) {
		t.Parallel()
		apptest.Each(t, func(t *testing.T, e *apptest.Env) {
			org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
			for _, email := range []string{"ada@acme.test", "bob@acme.test"} {
				apptest.Want(t, send(e, org, email), 200, "")
			}
			closeJIT(t, e, org)
			sameProcess(t, "closed JIT", refused(e, org))
			apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org, nil), 200, "")
			sameProcess(t, "deleted organization", deleted(e, org))
		})
	})
	t.Run("other process", func(t *testing.T) {
		t.Parallel()
		apptest.EachPair(t, func(t *testing.T, e1, e2 *apptest.Env) {
			org := e1.CreateOrg("acme", "ALL_ALLOWED", nil)
			for _, email := range []string{"ada@acme.test", "bob@acme.test"} {
				apptest.Want(t, send(e1, org, email), 200, "")
			}
			closeJIT(t, e2, org)
			within(t, time.Second, "closed JIT", refused(e1, org))
			apptest.Want(t, e2.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org, nil), 200, "")
			within(t, time.Second, "deleted organization", deleted(e1, org))
		})
	})
}

// A session belongs to its project: another project's backend or SDK face
// answers session_not_found for its token and refuses its JWT, even right
// after the session's own project checked (and so cached) both.
func TestSessionIsBoundToItsProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, _ := e.Login(org, "ada@acme.test")
		for range 2 {
			apptest.Want(t, check(e, token, ""), 200, "")
			apptest.Want(t, check(e, "", jwt), 200, "")
		}
		other := e.NewProject("Other")
		backend := func(body map[string]any) apptest.Resp {
			return e.Do(http.MethodPost, "/v1/b2b/sessions/authenticate", body, nil, other.Project.ID, other.Secret)
		}
		apptest.Want(t, backend(map[string]any{"session_token": token}), 404, "session_not_found")
		if r := backend(map[string]any{"session_jwt": jwt}); r.Status == 200 {
			t.Fatalf("another project accepted the JWT: %s", r.Raw)
		}
		r := e.Do(http.MethodPost, "/sdk/v1/b2b/sessions/authenticate", map[string]any{},
			http.Header{"Origin": {apptest.Origin}}, other.PublicToken, token)
		if r.Status == 200 {
			t.Fatalf("another project's SDK face accepted the token: %s", r.Raw)
		}
	})
}

// A cached organization serves only its own project: another project's
// login send naming it gets organization_not_found, as before it was
// cached, and no member is made for it.
func TestCachedOrganizationIsBoundToItsProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		body := map[string]any{"email_address": "ada@acme.test", "organization_id": org}
		for range 2 {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup", body), 200, "")
		}
		other := e.NewProject("Other")
		r := e.Do(http.MethodPost, "/v1/b2b/otps/email/login_or_signup", map[string]any{"email_address": "eve@acme.test",
			"organization_id": org}, nil, other.Project.ID, other.Secret)
		apptest.Want(t, r, 404, "organization_not_found")
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members/search", nil)
		if r.Status == 200 && strings.Contains(string(r.Raw), "eve@acme.test") {
			t.Fatalf("a member made through another project: %s", r.Raw)
		}
	})
}

// Retiring a signing key (`keys retire` from the CLI) stops the JWTs it
// signed, those already verified and remembered included, within a second
// on a running server. Rotation alone does not: the old key stays
// published until it is retired.
func TestRetiredKeyStopsRememberedJWTs(t *testing.T) {
	apptest.EachPair(t, func(t *testing.T, server, cli *apptest.Env) {
		ctx := context.Background()
		pid := server.Project.Project.ID
		org := server.CreateOrg("acme", "ALL_ALLOWED", nil)
		_, jwt, _ := server.Login(org, "ada@acme.test")
		for range 2 {
			apptest.Want(t, check(server, "", jwt), 200, "")
		}
		keys, err := cli.App.Projects.ListSigningKeys(ctx, pid)
		if err != nil || len(keys) != 1 {
			t.Fatalf("keys before rotation: %v %v", keys, err)
		}
		if _, err := cli.App.Projects.RotateSigningKey(ctx, pid); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, check(server, "", jwt), 200, "")
		if err := cli.App.Projects.RetireSigningKey(ctx, pid, keys[0].KID); err != nil {
			t.Fatal(err)
		}
		within(t, time.Second, "JWT of a retired key refused", func() bool { return check(server, "", jwt).Status != 200 })
	})
}

// After a leak an operator rotates the signing key and retires the old
// one: from then on a session check answers with a JWT signed by the new
// key, within a second on a running server (the CLI is another process),
// not with the JWT it cached under the retired key, which the server itself
// and every JWKS-verifying backend refuse.
func TestRetiredKeyStopsSigningCachedJWTs(t *testing.T) {
	retire := func(t *testing.T, server, by *apptest.Env) string {
		ctx := context.Background()
		pid := server.Project.Project.ID
		keys, err := by.App.Projects.ListSigningKeys(ctx, pid)
		if err != nil || len(keys) != 1 {
			t.Fatalf("keys before rotation: %v %v", keys, err)
		}
		if _, err := by.App.Projects.RotateSigningKey(ctx, pid); err != nil {
			t.Fatal(err)
		}
		if err := by.App.Projects.RetireSigningKey(ctx, pid, keys[0].KID); err != nil {
			t.Fatal(err)
		}
		return keys[0].KID
	}
	// signedAfter reports whether a check of token answers with a JWT not
	// signed by retired, which the server accepts in turn.
	signedAfter := func(t *testing.T, server *apptest.Env, token, retired string) bool {
		r := check(server, token, "")
		apptest.Want(t, r, 200, "")
		jwt, _ := r.Body["session_jwt"].(string)
		return jwtKID(t, jwt) != retired && check(server, "", jwt).Status == 200
	}
	warmed := func(t *testing.T, server *apptest.Env) string {
		org := server.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _, _ := server.Login(org, "ada@acme.test")
		for range 2 {
			apptest.Want(t, check(server, token, ""), 200, "")
		}
		return token
	}
	t.Run("same process", func(t *testing.T) {
		apptest.Each(t, func(t *testing.T, e *apptest.Env) {
			token := warmed(t, e)
			retired := retire(t, e, e)
			sameProcess(t, "JWT signed by the current key", func() bool { return signedAfter(t, e, token, retired) })
		})
	})
	t.Run("other process", func(t *testing.T) {
		apptest.EachPair(t, func(t *testing.T, server, cli *apptest.Env) {
			token := warmed(t, server)
			retired := retire(t, server, cli)
			within(t, time.Second, "JWT signed by the current key", func() bool { return signedAfter(t, server, token, retired) })
		})
	})
}

// jwtKID is the kid in a compact JWT's header.
func jwtKID(t *testing.T, jwt string) string {
	t.Helper()
	head, _, ok := strings.Cut(jwt, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	var h struct {
		KID string `json:"kid"`
	}
	if !ok || err != nil || json.Unmarshal(raw, &h) != nil {
		t.Fatalf("not a compact JWT: %q", jwt)
	}
	return h.KID
}
