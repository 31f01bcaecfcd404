package password_test

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password/pwhash"
)

// migrateBody is a bcrypt import of apptest.StrongPassword for email in
// org, with extra fields.
func migrateBody(t *testing.T, org, email string, extra map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"organization_id": org, "email_address": email, "hash_type": "bcrypt", "hash": string(mustBcrypt(t))}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

// explicitRoles lists the member's explicitly assigned roles (stytch_member
// is everyone's and not listed).
func explicitRoles(m map[string]any) []string {
	var out []string
	for _, r := range m["roles"].([]any) {
		role := r.(map[string]any)
		for _, src := range role["sources"].([]any) {
			if src.(map[string]any)["type"] == "direct_assignment" && role["role_id"] != "stytch_member" {
				out = append(out, role["role_id"].(string))
			}
		}
	}
	slices.Sort(out)
	return out
}

// The member fields passwords/migrate takes beyond the password (the Node
// client's B2BPasswordsMigrateRequest): roles replace the explicit roles,
// external_id names a member it creates (and is ignored for one that
// exists), mfa_phone_number sets the MFA number under the member update's
// rules, and set_phone_number_verified vouches for it.
func TestPasswordMigrateMemberFields(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		migrate := func(email string, extra map[string]any) map[string]any {
			t.Helper()
			r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", migrateBody(t, org, email, extra))
			apptest.Want(t, r, 200, "")
			return r.Body
		}
		check := func(m map[string]any, want map[string]any, roles ...string) {
			t.Helper()
			for k, v := range want {
				if m[k] != v {
					t.Fatalf("member %s = %v, want %v (member %v)", k, m[k], v, m)
				}
			}
			if got := explicitRoles(m); !slices.Equal(got, roles) {
				t.Fatalf("explicit roles %v, want %v", got, roles)
			}
		}

		// A new member takes every field, and its external id names it.
		b := migrate("ada@acme.test", map[string]any{"roles": []string{"stytch_admin"}, "external_id": "crm|ada-7",
			"mfa_phone_number": "+1 (202) 555-0123", "set_phone_number_verified": true})
		want := map[string]any{"member_id": b["member_id"], "external_id": "crm|ada-7", "mfa_phone_number": "+12025550123",
			"mfa_phone_number_verified": true, "email_address_verified": true}
		if b["member_created"] != true {
			t.Fatalf("migrate: %v", b)
		}
		check(b["member"].(map[string]any), want, "stytch_admin")
		check(e.MemberByID(org, "crm|ada-7"), want, "stytch_admin")

		// Without set_phone_number_verified the number is set unverified,
		// as a member update sets it.
		b = migrate("bob@acme.test", map[string]any{"mfa_phone_number": "+12025550124"})
		check(b["member"].(map[string]any), map[string]any{"mfa_phone_number": "+12025550124", "mfa_phone_number_verified": false,
			"external_id": ""})

		// An existing member: roles completely replace the explicit ones
		// (here, with none), external_id is ignored, the number is vouched.
		cy := e.CreateAdmin(org, "cy@acme.test")
		b = migrate("cy@acme.test", map[string]any{"roles": []string{}, "external_id": "crm|cy", "mfa_phone_number": "+12025550125",
			"set_phone_number_verified": true})
		want = map[string]any{"member_id": cy, "external_id": "", "mfa_phone_number": "+12025550125", "mfa_phone_number_verified": true}
		if b["member_created"] != false {
			t.Fatalf("migrate for an existing member: %v", b)
		}
		check(b["member"].(map[string]any), want)
		check(e.MemberByID(org, cy), want)
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?member_id=crm|cy", nil), 404, "member_not_found")

		// The same number again, now vouched for, verifies it; no roles
		// field leaves the roles as they are.
		e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+cy, map[string]any{"roles": []string{"stytch_admin"}})
		b = migrate("bob@acme.test", map[string]any{"mfa_phone_number": "+12025550124", "set_phone_number_verified": true})
		check(b["member"].(map[string]any), map[string]any{"mfa_phone_number_verified": true})
		check(migrate("cy@acme.test", nil)["member"].(map[string]any), want, "stytch_admin")
	})
}

// A migrate the member fields refuse writes nothing: no member, no roles,
// no number, and no password (a replaced one stays, with what it opened).
func TestPasswordMigrateRefusalWritesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		taken := e.CreateMember(org, "taken@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+taken, map[string]any{
			"external_id": "crm-1", "mfa_phone_number": "+12025550100"}), 200, "")
		// ada has a password, a session it opened, an admin role and a number.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", migrateBody(t, org, "ada@acme.test",
			map[string]any{"roles": []string{"stytch_admin"}, "mfa_phone_number": "+12025550111"})), 200, "")
		session := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword).Data()["session_token"].(string)
		adaHash := storedHash(e, "ada@acme.test")
		other, err := bcrypt.GenerateFromPassword([]byte("Gravel-Mitten-Sonnet-29"), 4)
		if err != nil {
			t.Fatal(err)
		}

		cases := []struct {
			name, errType string
			fields        map[string]any
		}{
			{"unknown role", "invalid_request", map[string]any{"roles": []string{"no_such_role"}}},
			{"default role", "cannot_assign_default_rbac_role_id", map[string]any{"roles": []string{"stytch_member"}}},
			{"duplicate external id", "duplicate_member_external_id", map[string]any{"external_id": "crm-1"}},
			{"malformed external id", "invalid_request", map[string]any{"external_id": "crm 1"}},
			{"malformed number", "invalid_phone_number", map[string]any{"mfa_phone_number": "2025550199"}},
			{"another member's number", "duplicate_member_phone_number", map[string]any{"mfa_phone_number": "+12025550100"}},
			{"vouching for no number", "invalid_request", map[string]any{"set_phone_number_verified": true}},
		}
		for _, c := range cases {
			fields := map[string]any{"roles": []string{}, "hash": string(other)}
			for k, v := range c.fields {
				fields[k] = v
			}
			// A new address: no member and no password are left behind.
			r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", migrateBody(t, org, "new@acme.test", fields))
			apptest.Want(t, r, 400, c.errType)
			apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=new@acme.test", nil),
				404, "member_not_found")
			if n := e.Count(`SELECT COUNT(*) FROM member_passwords WHERE email_address = $1`, "new@acme.test"); n != 0 {
				t.Fatalf("%s: a refused migrate stored a password for a new address", c.name)
			}
			// An existing member (also refused for a different number, the
			// update's one-number rule) keeps its roles, number and password.
			if c.name == "malformed external id" || c.name == "duplicate external id" {
				continue // ignored for an existing member
			}
			if c.name == "another member's number" {
				fields["mfa_phone_number"] = "+12025550199"
			}
			r = e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", migrateBody(t, org, "ada@acme.test", fields))
			if r.Status != 400 {
				t.Fatalf("%s: migrate for ada: %s", c.name, r.Raw)
			}
			m := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=ada@acme.test", nil).Body["member"].(map[string]any)
			if got := explicitRoles(m); !slices.Equal(got, []string{"stytch_admin"}) || m["mfa_phone_number"] != "+12025550111" {
				t.Fatalf("%s: a refused migrate changed the member: %v", c.name, m)
			}
			if storedHash(e, "ada@acme.test") != adaHash {
				t.Fatalf("%s: a refused migrate replaced the password", c.name)
			}
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, session), 200, "")
		}
	})
}

// md_5, sha_1 and sha_512 imports (H(prepend_salt + password +
// append_salt) as a hex digest, salts optional) log in with the right
// password only, and the first login upgrades them to argon2id.
func TestPasswordMigrateDigests(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		digest := func(h func() hash.Hash, pre, app string) string {
			d := h()
			d.Write([]byte(pre + apptest.StrongPassword + app))
			return hex.EncodeToString(d.Sum(nil))
		}
		salts := map[string]any{"prepend_salt": "s4lt$", "append_salt": ":pepper"}
		for i, c := range []struct {
			name, kind string
			body       map[string]any
		}{
			{"md5 salted", "md5", map[string]any{"hash_type": "md_5", "hash": digest(md5.New, "s4lt$", ":pepper"), "md_5_config": salts}},
			{"md5 bare", "md5", map[string]any{"hash_type": "md_5", "hash": digest(md5.New, "", "")}},
			{"sha1 prepended", "sha1", map[string]any{"hash_type": "sha_1", "hash": strings.ToUpper(digest(sha1.New, "s4lt$", "")),
				"sha_1_config": map[string]any{"prepend_salt": "s4lt$", "append_salt": ""}}},
			{"sha512 salted", "sha512", map[string]any{"hash_type": "sha_512", "hash": digest(sha512.New, "s4lt$", ":pepper"),
				"sha_512_config": salts}},
		} {
			email := "user" + string(rune('a'+i)) + "@acme.test"
			c.body["email_address"], c.body["organization_id"] = email, org
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", c.body), 200, "")
			if k := pwhash.Kind(storedHash(e, email)); k != c.kind {
				t.Fatalf("%s: stored as %q", c.name, k)
			}
			apptest.Want(t, e.PasswordLogin(org, email, "Not-"+apptest.StrongPassword), 401, "unauthorized_credentials")
			if r := e.PasswordLogin(org, email, apptest.StrongPassword); r.Status != 200 {
				t.Fatalf("%s: login: %s", c.name, r.Raw)
			}
			if h := storedHash(e, email); !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
				t.Fatalf("%s: after login the hash is %q, want argon2id at the server's cost", c.name, h)
			}
			apptest.Want(t, e.PasswordLogin(org, email, apptest.StrongPassword), 200, "")
		}
		// The salts are the other system's: hashed without them, the
		// password does not match.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"hash_type": "md_5",
			"hash": digest(md5.New, "", ""), "md_5_config": salts, "email_address": "salty@acme.test", "organization_id": org}), 200, "")
		apptest.Want(t, e.PasswordLogin(org, "salty@acme.test", apptest.StrongPassword), 401, "unauthorized_credentials")
	})
}

// Vouching for a number makes it an SMS factor, so it needs an
// organization that allows SMS for the member, also when the number is
// the one already stored (set before the organization restricted its MFA
// methods, which a same-number update does not check): refused with
// operation_restricted_by_organization_mfa_methods, and nothing is written.
func TestPasswordMigrateVouchingNeedsSMSAllowed(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		ada := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+ada, map[string]any{
			"mfa_phone_number": "+12025550123"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{
			"mfa_methods": "RESTRICTED", "allowed_mfa_methods": []string{"totp"}}), 200, "")

		r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", migrateBody(t, org, "ada@acme.test", map[string]any{
			"mfa_phone_number": "+12025550123", "set_phone_number_verified": true}))
		apptest.Want(t, r, 403, "operation_restricted_by_organization_mfa_methods")
		if m := e.MemberByID(org, ada); m["mfa_phone_number_verified"] != false {
			t.Fatalf("the refused vouch verified the number: %v", m)
		}
		if n := e.Count(`SELECT COUNT(*) FROM member_passwords WHERE email_address = $1`, "ada@acme.test"); n != 0 {
			t.Fatal("the refused migrate stored a password")
		}
		// The same number without the vouch is no change, and imports.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", migrateBody(t, org, "ada@acme.test", map[string]any{
			"mfa_phone_number": "+12025550123"})), 200, "")
	})
}
