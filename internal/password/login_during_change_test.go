package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/password/breach"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A login checks the password against the credential as it was read
// before the login's transaction. A change that commits in between (a
// reset through the inbox, which ends the address's sessions; a forced
// reset; a deletion) must stand: the login is answered as a login against
// the password as it now stands would be, and whatever it opened does not
// outlive the change. The password is the address's, so a login to
// another organization of the address, or by discovery, is no different.

// changeFixture is ada@acme.test, a member of acme and of beta, whose
// address has apptest.StrongPassword and a reset link mailed from acme.
type changeFixture struct {
	e                        *apptest.Env
	acme, beta, ada          string // organization ids, and ada's member id in acme
	svc                      *password.Service
	oldPassword, newPassword string
}

func newChangeFixture(t *testing.T, e *apptest.Env) *changeFixture {
	t.Helper()
	f := &changeFixture{e: e, oldPassword: apptest.StrongPassword, newPassword: "Victims-Own-Lantern-62"}
	f.acme = e.CreateOrg("acme", "NOT_ALLOWED", nil)
	f.beta = e.CreateOrg("beta", "NOT_ALLOWED", nil)
	f.ada = e.CreateMember(f.acme, "ada@acme.test")
	e.CreateMember(f.beta, "ada@acme.test")
	e.SetPassword(f.acme, "ada@acme.test", f.oldPassword)
	apptest.Want(t, e.ResetStart(f.acme, "ada@acme.test", nil), 200, "")
	// A service of its own on e's database (as existingResetService), with
	// discovery, so that a test can watch its verifications.
	svc, err := password.New(password.Deps{DB: e.App.DB, Clock: e.App.Clock, Projects: e.App.Projects, Orgs: e.App.Orgs,
		Sessions: e.App.Sessions, Limiter: e.App.Limiter, Breach: breach.New("off", e.App.Clock, nil),
		Discovery: discovery.New(discovery.Deps{DB: e.App.DB, Clock: e.App.Clock, Projects: e.App.Projects,
			Orgs: e.App.Orgs, Sessions: e.App.Sessions, Limiter: e.App.Limiter, Box: e.App.Box}),
		Hashing: pwhash.Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	return f
}

// changeLogin is one way to log in with the address's password.
type changeLogin struct {
	name string
	// login logs in with the old password; on success, works reports
	// whether what it got (a session, a discovery IST) is still honoured.
	login func(t *testing.T, f *changeFixture) (works func() bool, err error)
}

// orgLogin logs in to the organization org picks from the fixture.
func orgLogin(org func(f *changeFixture) string) func(t *testing.T, f *changeFixture) (func() bool, error) {
	return func(t *testing.T, f *changeFixture) (func() bool, error) {
		sixty := 60
		resp, err := f.svc.Authenticate(t.Context(), password.AuthParams{Project: f.e.Project.Project, ClientIP: "203.0.113.7",
			OrganizationID: org(f), Email: "ada@acme.test", Password: f.oldPassword, DurationMinutes: &sixty})
		if err != nil {
			return nil, err
		}
		return func() bool {
			return f.e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate",
				map[string]any{"session_token": resp.SessionToken}).Status == 200
		}, nil
	}
}

var changeLogins = []changeLogin{
	{"same organization", orgLogin(func(f *changeFixture) string { return f.acme })},
	{"other organization", orgLogin(func(f *changeFixture) string { return f.beta })},
	{"discovery", func(t *testing.T, f *changeFixture) (func() bool, error) {
		out, err := f.svc.DiscoveryAuthenticate(t.Context(), password.DiscoveryAuthParams{Project: f.e.Project.Project,
			ClientIP: "203.0.113.7", Email: "ada@acme.test", Password: f.oldPassword})
		if err != nil {
			return nil, err
		}
		return func() bool {
			return f.e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
				"intermediate_session_token": out.IntermediateSessionToken, "organization_id": f.beta,
				"session_duration_minutes": 60}, "").Status == 200
		}, nil
	}},
}

// wantRefused fails the test unless the login was answered want, and
// says whether what a login let through still works.
func wantRefused(t *testing.T, works func() bool, err error, want apierr.Type) {
	t.Helper()
	if err == nil {
		t.Fatalf("the login with the old password succeeded (its session or IST still works: %v), want %s", works(), want)
	}
	if !apierr.Is(err, want) {
		t.Fatalf("login with the old password: %v, want %s", err, want)
	}
}

// changeCases are the changes of the address's password; during makes
// one committed by the real handlers (see the login tests), want is the
// login's answer once it stands.
var changeCases = []struct {
	name   string
	during func(t *testing.T, f *changeFixture)
	want   apierr.Type
}{
	{"reset through the inbox", func(t *testing.T, f *changeFixture) {
		apptest.Want(t, f.e.ResetWith(f.e.ResetLink("ada@acme.test", "multi_tenant_passwords"), f.newPassword, nil), 200, "")
	}, apierr.UnauthorizedCredentials},
	{"forced reset", func(t *testing.T, f *changeFixture) {
		apptest.Want(t, f.e.Backend(http.MethodPost, "/v1/b2b/passwords/email/require_reset",
			map[string]any{"organization_id": f.acme, "email_address": "ada@acme.test"}), 200, "")
	}, apierr.ResetPassword},
	{"deletion", func(t *testing.T, f *changeFixture) {
		apptest.Want(t, f.e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/passwords/"+
			f.e.PasswordID(f.acme, f.ada), nil), 200, "")
	}, apierr.UnauthorizedCredentials},
}

// The change commits while the login verifies the old password, before
// the login's transaction begins.
func TestLoginRefusedWhenThePasswordChangesDuringTheCheck(t *testing.T) {
	for _, c := range changeCases {
		for _, l := range changeLogins {
			t.Run(c.name+"/"+l.name, func(t *testing.T) {
				apptest.Each(t, func(t *testing.T, e *apptest.Env) {
					f := newChangeFixture(t, e)
					acted, dummy := false, ""
					dummy = f.svc.WatchVerifies(func(encoded string) {
						if encoded != dummy && !acted {
							acted = true
							c.during(t, f)
						}
					})
					works, err := l.login(t, f)
					if !acted {
						t.Fatal("the password was never verified")
					}
					wantRefused(t, works, err, c.want)
				})
			})
		}
	}
}

// The change's transaction has written the password's row (and, for a
// reset, ended the address's sessions) but not committed when the login
// checks the old password, which it still reads; the login must wait for
// the change and then see it, not open a session after the change ended
// them and commit it beside the change. PostgreSQL only: SQLite has one
// writer, so the login's transaction would simply come after.
func TestLoginRefusedWhenThePasswordChangeCommitsDuringTheLogin(t *testing.T) {
	t.Parallel()
	held := []struct {
		name   string
		change func(t *testing.T, f *changeFixture, q store.Querier) error
		want   apierr.Type
	}{
		{"reset", func(t *testing.T, f *changeFixture, q store.Querier) error {
			h, err := pwhash.Hash(t.Context(), f.newPassword, pwhash.Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1})
			if err != nil {
				return err
			}
			return f.svc.ChangePasswordIn(t.Context(), q, f.e.Project.Project, "ada@acme.test", h)
		}, apierr.UnauthorizedCredentials},
		{"forced reset", func(t *testing.T, f *changeFixture, q store.Querier) error {
			_, err := q.ExecContext(t.Context(), `UPDATE member_passwords SET require_reset = $1
				WHERE project_id = $2 AND email_address = $3`, true, f.e.Project.Project.ID, "ada@acme.test")
			return err
		}, apierr.ResetPassword},
		{"deletion", func(t *testing.T, f *changeFixture, q store.Querier) error {
			_, err := q.ExecContext(t.Context(), `DELETE FROM member_passwords WHERE project_id = $1 AND email_address = $2`,
				f.e.Project.Project.ID, "ada@acme.test")
			return err
		}, apierr.UnauthorizedCredentials},
	}
	for _, c := range held {
		for _, l := range changeLogins {
			t.Run(c.name+"/"+l.name, func(t *testing.T) {
				t.Parallel()
				e := apptest.New(t, apptest.Postgres(t), nil)
				f := newChangeFixture(t, e)
				var works func() bool
				var loginErr error
				changeErr, _ := storetest.Overlap(t, e.App.DB, func(q store.Querier) error { return c.change(t, f, q) },
					func() error {
						works, loginErr = l.login(t, f)
						return nil
					})
				if changeErr != nil {
					t.Fatalf("change: %v", changeErr)
				}
				wantRefused(t, works, loginErr, c.want)
			})
		}
	}
}
