package password_test

import (
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/password/pwhash"
)

// A wrong password costs what an unknown address costs (one verification
// of the dummy hash, d), as nearly as the stored hash allows: a stored
// hash much cheaper than the current cost (an imported MD5 digest, a weak
// argon2id) verifies the dummy as well, and one that already cost at
// least half of d (a dearer bcrypt) does not, so it is not twice as far
// from an unknown address as it already is. A hash at the current cost is
// verified alone. What each verification costs is simulated on the fake
// clock the service measures with: no test here is timed.
func TestWrongPasswordCostsTheDummyOnlyWhenCheaper(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.SQLite(t), nil)
	org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	migrate := func(email, hash, hashType string) {
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": org,
			"email_address": email, "hash": hash, "hash_type": hashType}), 200, "")
	}
	sum := md5.Sum([]byte(apptest.StrongPassword))
	migrate("md5@acme.test", hex.EncodeToString(sum[:]), "md_5")
	bc, err := bcryptOf(apptest.StrongPassword)
	if err != nil {
		t.Fatal(err)
	}
	migrate("bcrypt@acme.test", bc, "bcrypt")
	weak, err := pwhash.Hash(t.Context(), apptest.StrongPassword, pwhash.Params{MemoryKiB: 32, Iterations: 1, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	migrate("weak@acme.test", weak, "argon_2id")
	e.CreateMember(org, "argon@acme.test")
	e.SetPassword(org, "argon@acme.test", apptest.StrongPassword)

	const dummyCost = 40 * time.Millisecond
	svc := raceService(t, e)
	var dummy string
	var cost time.Duration // what the current case's stored hash costs
	var dummies int
	dummy = svc.WatchVerifies(func(encoded string) {
		if encoded == dummy {
			dummies++
			e.Clock.Advance(dummyCost)
			return
		}
		e.Clock.Advance(cost)
	})
	for i, c := range []struct {
		email     string
		cost      time.Duration
		wantDummy bool
	}{
		{"md5@acme.test", 0, true}, // the dummy's cost is not known yet: it is verified, and measured
		{"nobody@acme.test", 0, true},
		{"md5@acme.test", time.Millisecond, true},
		{"bcrypt@acme.test", 190 * time.Millisecond, false}, // dearer than the dummy
		{"bcrypt@acme.test", dummyCost, false},
		{"weak@acme.test", dummyCost / 2, false}, // d/2 alone is as near to d as 3d/2
		{"weak@acme.test", dummyCost/2 - time.Millisecond, true},
		{"argon@acme.test", 0, false}, // the current cost: the dummy's twin
	} {
		cost, dummies = c.cost, 0
		_, err := svc.Authenticate(t.Context(), password.AuthParams{Project: e.Project.Project, ClientIP: "203.0.113.9",
			OrganizationID: org, Email: c.email, Password: "Wrong-Walrus-Trombone-11"})
		if err == nil {
			t.Fatalf("%d %s: a wrong password logged in", i, c.email)
		}
		if got := dummies == 1; got != c.wantDummy || dummies > 1 {
			t.Fatalf("%d %s (stored hash costing %s): the dummy was verified %d times, want it %v", i, c.email, c.cost, dummies, c.wantDummy)
		}
	}
}
