package password_test

import (
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"hash"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/scrypt"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password/pwhash"
)

// legacyImports builds, with the primitives other systems use, one import
// request of every supported kind for password pw.
func legacyImports(t *testing.T, pw string) map[string]map[string]any {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString
	salt := []byte("0123456789abcdef")
	bc, err := bcrypt.GenerateFromPassword([]byte(pw), 4)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scrypt.Key([]byte(pw), salt, 1024, 8, 1, 32)
	if err != nil {
		t.Fatal(err)
	}
	pb := func(h func() hash.Hash, n int) string {
		k, err := pbkdf2.Key(h, pw, salt, 1000, n)
		if err != nil {
			t.Fatal(err)
		}
		return b64(k)
	}
	a2i := argon2.Key([]byte(pw), salt, 2, 64, 1, 32)
	weakID, err := pwhash.Hash(t.Context(), pw, pwhash.Params{MemoryKiB: 32, Iterations: 1, Parallelism: 1}) // below the server's cost
	if err != nil {
		t.Fatal(err)
	}
	return map[string]map[string]any{
		"bcrypt": {"hash_type": "bcrypt", "hash": string(bc)},
		"argon2i (raw + config)": {"hash_type": "argon_2i", "hash": b64(a2i),
			"argon_2_config": map[string]any{"salt": string(salt), "iteration_amount": 2, "memory": 64, "threads": 1, "key_length": 32}},
		"argon2i (PHC)": {"hash_type": "argon_2i", "hash": "$argon2i$v=19$m=64,t=2,p=1$" +
			base64.RawStdEncoding.EncodeToString(salt) + "$" + base64.RawStdEncoding.EncodeToString(a2i)},
		"argon2id (weaker cost)": {"hash_type": "argon_2id", "hash": weakID},
		"scrypt": {"hash_type": "scrypt", "hash": b64(sc), "scrypt_config": map[string]any{"salt": b64(salt),
			"n_parameter": 1024, "r_parameter": 8, "p_parameter": 1, "key_length": 32}},
		"pbkdf2-sha1": {"hash_type": "pbkdf_2", "hash": pb(func() hash.Hash { return sha1.New() }, 20),
			"pbkdf_2_config": map[string]any{"salt": b64(salt), "iteration_amount": 1000, "key_length": 20, "algorithm": "sha1"}},
		"pbkdf2-sha256": {"hash_type": "pbkdf_2", "hash": pb(func() hash.Hash { return sha256.New() }, 32),
			"pbkdf_2_config": map[string]any{"salt": b64(salt), "iteration_amount": 1000, "key_length": 32}},
		"pbkdf2-sha512": {"hash_type": "pbkdf_2", "hash": pb(func() hash.Hash { return sha512.New() }, 64),
			"pbkdf_2_config": map[string]any{"salt": b64(salt), "iteration_amount": 1000, "key_length": 64, "algorithm": "sha512"}},
	}
}

// TestPasswordMigrateEveryKind imports each kind, logs in with it, and
// checks that the stored hash became argon2id at the server's cost and
// still works.
func TestPasswordMigrateEveryKind(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		i := 0
		for kind, req := range legacyImports(t, apptest.StrongPassword) {
			i++
			email := "user" + string(rune('a'+i)) + "@acme.test"
			req["email_address"], req["organization_id"], req["name"] = email, org, "Imported "+kind
			r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", req)
			m, _ := r.Body["member"].(map[string]any)
			if r.Status != 200 || r.Body["member_created"] != true || m["status"] != "active" || m["email_address_verified"] != true ||
				m["member_password_id"] == "" || m["name"] != "Imported "+kind {
				t.Fatalf("%s: migrate: %s", kind, r.Raw)
			}
			before := storedHash(e, email)
			if strings.HasPrefix(before, "$argon2id$v=19$m=64,t=1,p=1$") {
				t.Fatalf("%s: stored as the server's own format before any login: %s", kind, before)
			}
			apptest.Want(t, e.PasswordLogin(org, email, "Not-"+apptest.StrongPassword), 401, "unauthorized_credentials")
			if storedHash(e, email) != before {
				t.Fatalf("%s: a failed login changed the hash", kind)
			}
			if r := e.PasswordLogin(org, email, apptest.StrongPassword); r.Status != 200 {
				t.Fatalf("%s: login with the imported hash: %s", kind, r.Raw)
			}
			after := storedHash(e, email)
			if pwhash.Kind(after) != "argon2id" || !strings.HasPrefix(after, "$argon2id$v=19$m=64,t=1,p=1$") {
				t.Fatalf("%s: after login the hash is %q, want argon2id at the server's cost", kind, after)
			}
			if r := e.PasswordLogin(org, email, apptest.StrongPassword); r.Status != 200 || storedHash(e, email) != after {
				t.Fatalf("%s: second login: %s (hash rewritten: %v)", kind, r.Raw, storedHash(e, email) != after)
			}
		}

		// Importing for an existing member keeps the member and verifies it.
		existing := e.CreateMember(org, "old@acme.test")
		req := legacyImports(t, apptest.StrongPassword)["bcrypt"]
		req["email_address"], req["organization_id"] = "old@acme.test", org
		r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", req)
		if r.Status != 200 || r.Body["member_created"] != false || r.Body["member_id"] != existing {
			t.Fatalf("migrate for an existing member: %s", r.Raw)
		}

		// A breached password imported from elsewhere must be reset.
		bad := legacyImports(t, "Password123!")["bcrypt"]
		bad["email_address"], bad["organization_id"] = "leaky@acme.test", org
		e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", bad)
		apptest.Want(t, e.PasswordLogin(org, "leaky@acme.test", "Password123!"), 400, "reset_password")

		for name, body := range map[string]map[string]any{
			"md5 as base64":  {"hash_type": "md_5", "hash": "X03MO1qnZdYdgyfeuILPmQ=="},
			"garbage bcrypt": {"hash_type": "bcrypt", "hash": "$2a$10$short"},
			"scrypt no cfg":  {"hash_type": "scrypt", "hash": "AAAA"},
		} {
			body["email_address"], body["organization_id"] = "x@acme.test", org
			r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", body)
			if r.Status != 400 || r.ErrType() != "invalid_request" || r.Body["error_details"].(map[string]any)["field"] != "hash" {
				t.Errorf("%s: %s", name, r.Raw)
			}
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"hash_type": "bcrypt",
			"hash": string(mustBcrypt(t)), "email_address": "x@acme.test", "organization_id": "organization-test-nope"}), 404, "organization_not_found")
		// Backend only.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/migrate", req, ""), 404, "route_not_found")
	})
}

// A hash whose cost would hold the hashing slots for seconds at every
// wrong password (here the largest the earlier bounds let in, as PHC
// strings and as raw keys with their configs) is refused at import with
// the error any bad hash gets, saying why; nothing is stored.
func TestPasswordMigrateRefusesCostsTooHighForALogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		b64 := base64.RawStdEncoding.EncodeToString
		salt, key := []byte("0123456789abcdef"), []byte(strings.Repeat("k", 32))
		for name, body := range map[string]map[string]any{
			"argon2 PHC": {"hash_type": "argon_2id", "hash": "$argon2id$v=19$m=1048576,t=64,p=1$" + b64(salt) + "$" + b64(key)},
			"argon2 config": {"hash_type": "argon_2id", "hash": b64(key), "argon_2_config": map[string]any{
				"salt": string(salt), "iteration_amount": 8, "memory": 256 << 10, "threads": 1, "key_length": 32}},
			"scrypt PHC": {"hash_type": "scrypt", "hash": "$scrypt$ln=20,r=8,p=16$" + b64(salt) + "$" + b64(key)},
			"scrypt config": {"hash_type": "scrypt", "hash": b64(key), "scrypt_config": map[string]any{
				"salt": b64(salt), "n_parameter": 1 << 18, "r_parameter": 8, "p_parameter": 2, "key_length": 32}},
			"bcrypt": {"hash_type": "bcrypt", "hash": "$2a$16$" + strings.Repeat("a", 53)},
		} {
			body["email_address"], body["organization_id"] = "dear@acme.test", org
			r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", body)
			msg, _ := r.Body["error_message"].(string)
			details, _ := r.Body["error_details"].(map[string]any)
			if r.Status != 400 || r.ErrType() != "invalid_request" || details["field"] != "hash" || !strings.Contains(msg, "too high") {
				t.Errorf("%s: %s", name, r.Raw)
			}
		}
		if n := e.Count(`SELECT COUNT(*) FROM member_passwords WHERE email_address = $1`, "dear@acme.test"); n != 0 {
			t.Fatalf("%d passwords stored for refused imports", n)
		}
	})
}

func mustBcrypt(t *testing.T) []byte {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(apptest.StrongPassword), 4)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A migrate that replaces the address's password is a password change:
// reset links sent for the old one, the sessions and the logins in
// progress it opened all end, as with any other change. A first import
// leaves the address's sessions alone (no password opened them), and so
// does importing the same hash again. (Once a login has upgraded the
// stored hash, an import differs from it and counts as a replacement:
// without the password nothing tells that it is the same one.)
func TestPasswordMigrateOverAPasswordEndsWhatItOpened(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		migrate := func(hash string) {
			t.Helper()
			if r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"email_address": "ada@acme.test",
				"organization_id": org, "hash": hash, "hash_type": "bcrypt"}); r.Status != 200 {
				t.Fatalf("migrate: %s", r.Raw)
			}
		}
		alive := func(session string) bool {
			return e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, session).Status == 200
		}
		byCode, _ := e.LoginByEmailOTP(org, "ada@acme.test")
		first := string(mustBcrypt(t))
		migrate(first)
		migrate(first)
		if !alive(byCode) {
			t.Fatal("a first import, or the same hash again, ended a session")
		}

		byPassword := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword).Data()["session_token"].(string)
		ist, _ := e.SDK(http.MethodPost, "/b2b/passwords/discovery/authenticate", map[string]any{"email_address": "ada@acme.test",
			"password": apptest.StrongPassword}, "").Data()["intermediate_session_token"].(string)
		e.ResetStart(org, "ada@acme.test", nil)
		link := e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		if ist == "" || link == "" {
			t.Fatalf("setup: IST %q, reset link %q", ist, link)
		}

		replaced, err := bcrypt.GenerateFromPassword([]byte("Gravel-Mitten-Sonnet-29"), 4)
		if err != nil {
			t.Fatal(err)
		}
		migrate(string(replaced))
		if alive(byCode) || alive(byPassword) {
			t.Fatal("a session outlived the password's replacement")
		}
		apptest.Want(t, e.ResetWith(link, "Attacker-Chosen-Secret-91", nil), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
			"organization_id": org, "session_duration_minutes": 60}, ""), 404, "intermediate_session_not_found")
		if r := e.PasswordLogin(org, "ada@acme.test", "Gravel-Mitten-Sonnet-29"); r.Status != 200 {
			t.Fatalf("login with the imported password: %s", r.Raw)
		}
	})
}

// Importing the same hash again (once per organization of the address, as
// the API family advises a bulk import to) changes nothing: a reset
// forced since the first import stays forced, the imported password
// having been withdrawn. A different hash is a new password and lifts it.
func TestPasswordMigrateOfTheSameHashKeepsAForcedReset(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, beta := e.CreateOrg("acme", "ALL_ALLOWED", nil), e.CreateOrg("beta", "ALL_ALLOWED", nil)
		h := string(mustBcrypt(t))
		migrate := func(org, hash string) {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": org,
				"email_address": "ada@acme.test", "hash": hash, "hash_type": "bcrypt"}), 200, "")
		}
		migrate(acme, h)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/email/require_reset",
			map[string]any{"organization_id": acme, "email_address": "ada@acme.test"}), 200, "")
		for _, org := range []string{beta, acme} {
			migrate(org, h)
			apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword), 400, "reset_password")
		}
		other, err := bcryptOf("Other-Walrus-Trombone-77")
		if err != nil {
			t.Fatal(err)
		}
		migrate(acme, other)
		apptest.Want(t, e.PasswordLogin(beta, "ada@acme.test", "Other-Walrus-Trombone-77"), 200, "")
	})
}
