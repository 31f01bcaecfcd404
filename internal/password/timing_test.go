package password_test

import (
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A wrong password for an address whose stored hash is cheaper than the
// current cost (an imported MD5 digest) verifies the dummy hash as well,
// so it costs at least what an unknown address costs and the answer's
// timing does not tell which addresses hold a password. A hash at the
// current cost is verified alone, as before. (A right password pays for
// the upgrade to the current cost instead.)
func TestWrongPasswordForACheapHashCostsTheDummy(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, storetest.SQLite(t), nil)
	org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	sum := md5.Sum([]byte(apptest.StrongPassword))
	apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": org,
		"email_address": "md5@acme.test", "hash": hex.EncodeToString(sum[:]), "hash_type": "md_5"}), 200, "")
	e.CreateMember(org, "argon@acme.test")
	e.SetPassword(org, "argon@acme.test", apptest.StrongPassword)

	svc := raceService(t, e)
	var seen []string
	dummy := svc.WatchVerifies(func(encoded string) { seen = append(seen, encoded) })
	login := func(email, pw string) error {
		_, err := svc.Authenticate(t.Context(), password.AuthParams{Project: e.Project.Project, ClientIP: "203.0.113.9",
			OrganizationID: org, Email: email, Password: pw})
		return err
	}
	for _, c := range []struct {
		email, pw  string
		wantDummy  bool
		wantLogged bool
	}{
		{"md5@acme.test", "Wrong-Walrus-Trombone-11", true, false},
		{"argon@acme.test", "Wrong-Walrus-Trombone-11", false, false},
		{"nobody@acme.test", "Wrong-Walrus-Trombone-11", true, false},
	} {
		seen = nil
		err := login(c.email, c.pw)
		if (err == nil) != c.wantLogged {
			t.Fatalf("%s: login error %v", c.email, err)
		}
		if got := slices.Contains(seen, dummy); got != c.wantDummy {
			t.Fatalf("%s (logged in %v): dummy verified %v, want %v (verified %d hashes)", c.email, c.wantLogged, got, c.wantDummy, len(seen))
		}
	}
}
