package password_test

import (
	"net/http"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A second migrate of an address finds the member the first created and
// imports for it (member_created false; TestPasswordMigrateEveryKind).
// Two migrates of a new address at once (an import job retried, two
// workers) both find no member and both create one; the second must
// still answer as if it had come second, not duplicate_member_email from
// the unique index. In each test the first creation (the real code) is
// held open in its transaction while the second request runs
// (storetest.Overlap; SQLite has one writer, so the second would only
// wait and then find the member).

// migrateRace is a PostgreSQL server with an organization admitting
// email JIT signups of acme.test, the organization, and a bcrypt hash of
// apptest.StrongPassword to import.
func migrateRace(t *testing.T) (e *apptest.Env, org *organization.Organization, hash string) {
	t.Helper()
	e = apptest.New(t, apptest.Postgres(t), nil)
	orgID := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	org, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, orgID)
	if err != nil {
		t.Fatal(err)
	}
	return e, org, string(mustBcrypt(t))
}

// raceService is a password service on e's database, for the first,
// held transaction of a race (MigrateIn).
func raceService(t *testing.T, e *apptest.Env) *password.Service {
	t.Helper()
	svc, err := password.New(password.Deps{DB: e.App.DB, Clock: e.App.Clock, Orgs: e.App.Orgs, Sessions: e.App.Sessions,
		Limiter: e.App.Limiter, Hashing: pwhash.Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// wantImported fails unless r is a migrate that found (not created) the
// organization's one member with email, now active and verified, and
// the password logs them in.
func wantImported(t *testing.T, e *apptest.Env, org *organization.Organization, email string, r apptest.Resp) {
	t.Helper()
	apptest.Want(t, r, 200, "")
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, org.OrganizationID); n != 1 {
		t.Fatalf("%d members of the organization, want the one", n)
	}
	m := r.Body["member"].(map[string]any)
	if r.Body["member_created"] != false || m["status"] != "active" || m["email_address_verified"] != true {
		t.Fatalf("second migrate: %s", r.Raw)
	}
	if l := e.PasswordLogin(org.OrganizationID, email, apptest.StrongPassword); l.Status != 200 || l.Data()["member_id"] != m["member_id"] {
		t.Fatalf("login with the imported password: %s", l.Raw)
	}
}

// A migrate while another migrate of the address creates its member.
func TestMigratesOfOneNewAddressAtOnce(t *testing.T) {
	t.Parallel()
	e, org, hash := migrateRace(t)
	ctx := t.Context()
	svc := raceService(t, e)
	var first *password.MigrateResult
	migrateIn := func(q store.Querier) (err error) {
		first, err = svc.MigrateIn(ctx, q, password.MigrateParams{Project: e.Project.Project, OrganizationID: org.OrganizationID,
			Email: "ada@acme.test", Hash: pwhash.Import{Hash: hash, HashType: "bcrypt"}})
		return err
	}
	r := migrateDuring(t, e, migrateIn, org.OrganizationID, hash)
	if !first.MemberCreated {
		t.Fatal("the first migrate found a member")
	}
	wantImported(t, e, org, "ada@acme.test", r)
	if r.Body["member_id"] != first.Member.MemberID {
		t.Fatalf("second migrate answered member %v; the first created %s", r.Body["member_id"], first.Member.MemberID)
	}
}

// A migrate while a login-or-signup of the address creates it as a
// pending member (email JIT): the migrate imports for that member and
// verifies it, as it does a pending member found.
func TestMigrateDuringASignupOfTheAddress(t *testing.T) {
	t.Parallel()
	e, org, hash := migrateRace(t)
	ctx := t.Context()
	signup := func(q store.Querier) error {
		_, _, err := e.App.Orgs.MemberForEmailLoginIn(ctx, q, org, e.Project.Project.Env, "ada@acme.test")
		return err
	}
	r := migrateDuring(t, e, signup, org.OrganizationID, hash)
	wantImported(t, e, org, "ada@acme.test", r)
}

// Two migrates of an address new to passwords, into two of its
// organizations with different hashes (two import jobs, one per former
// tenant): whichever comes second replaces the first's password, which
// is a password change (TestPasswordMigrateOverAPasswordEndsWhatItOpened),
// so the address's sessions end. Both must not read "no password yet"
// and each store theirs as a first one: the later hash would win with
// none of a change's side effects, and a session opened before the
// imports (here by email code) would outlive the password's replacement.
func TestMigratesOfOneAddressIntoTwoOrganizationsAtOnce(t *testing.T) {
	t.Parallel()
	e, orgA, first := migrateRace(t)
	ctx := t.Context()
	orgB := e.CreateOrg("globex", "NOT_ALLOWED", nil)
	e.CreateMember(orgA.OrganizationID, "ada@acme.test")
	byCode, _ := e.LoginByEmailOTP(orgA.OrganizationID, "ada@acme.test")
	second, err := bcrypt.GenerateFromPassword([]byte("Gravel-Mitten-Sonnet-29"), 4)
	if err != nil {
		t.Fatal(err)
	}
	svc := raceService(t, e)
	migrateA := func(q store.Querier) error {
		_, err := svc.MigrateIn(ctx, q, password.MigrateParams{Project: e.Project.Project, OrganizationID: orgA.OrganizationID,
			Email: "ada@acme.test", Hash: pwhash.Import{Hash: first, HashType: "bcrypt"}})
		return err
	}
	r := migrateDuring(t, e, migrateA, orgB, string(second))
	apptest.Want(t, r, 200, "")
	// The held import committed first, so the request's came second.
	if l := e.PasswordLogin(orgB, "ada@acme.test", "Gravel-Mitten-Sonnet-29"); l.Status != 200 {
		t.Fatalf("login with the second import: %s", l.Raw)
	}
	if e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, byCode).Status == 200 {
		t.Fatal("the session opened before the imports outlived the second replacing the first's password")
	}
}

// migrateDuring imports hash (bcrypt) for ada@acme.test into org over
// the backend API while hold's transaction is open (storetest.Overlap),
// and returns the answer.
func migrateDuring(t *testing.T, e *apptest.Env, hold func(store.Querier) error, org, hash string) apptest.Resp {
	t.Helper()
	var r apptest.Resp
	if err, _ := storetest.Overlap(t, e.App.DB, hold, func() error {
		r = e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": org,
			"email_address": "ada@acme.test", "hash": hash, "hash_type": "bcrypt"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return r
}
