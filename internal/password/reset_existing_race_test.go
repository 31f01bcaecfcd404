package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/password/breach"
	"github.com/latchkey/latchkey/internal/password/pwhash"
)

// existingResetService is a password service on e's database with what
// existing_password/reset needs (the project's strength policy, the
// shipped breach list), at the tests' tiny argon2 cost, so a test can
// watch its verifications (WatchVerifies).
func existingResetService(t *testing.T, e *apptest.Env) *password.Service {
	t.Helper()
	svc, err := password.New(password.Deps{DB: e.App.DB, Clock: e.App.Clock, Projects: e.App.Projects, Orgs: e.App.Orgs,
		Sessions: e.App.Sessions, Limiter: e.App.Limiter, Breach: breach.New("off", e.App.Clock, nil),
		Hashing: pwhash.Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// A change with the existing password is checked against the credential
// as it was read before the change's transaction. What commits between
// that check and the change (an admin forcing a reset, the owner
// resetting through their inbox, a deletion of the password) must stand:
// the change is refused as a session reset is once the password no
// longer stands, instead of overwriting the row with the old password's
// holder's choice.
func TestExistingPasswordResetDoesNotUndoAChangeDuringTheCheck(t *testing.T) {
	const attackers = "Attacker-Chosen-Secret-51"
	const victims = "Victims-Own-Lantern-62"
	for _, c := range []struct {
		name string
		// during runs while the existing password is being verified.
		during func(t *testing.T, e *apptest.Env, org, member string)
		// after checks the address's password once the change was refused.
		after func(t *testing.T, e *apptest.Env, org, member string)
	}{
		{"forced reset", func(t *testing.T, e *apptest.Env, org, _ string) {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/email/require_reset",
				map[string]any{"organization_id": org, "email_address": "ada@acme.test"}), 200, "")
		}, func(t *testing.T, e *apptest.Env, org, _ string) {
			if n := e.Count(`SELECT COUNT(*) FROM member_passwords WHERE email_address = $1 AND require_reset = $2`,
				"ada@acme.test", true); n != 1 {
				t.Fatal("the forced reset was cleared")
			}
			apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword), 400, "reset_password")
		}},
		{"reset through the inbox", func(t *testing.T, e *apptest.Env, org, _ string) {
			apptest.Want(t, e.ResetWith(e.ResetLink("ada@acme.test", "multi_tenant_passwords"), victims, nil), 200, "")
		}, func(t *testing.T, e *apptest.Env, org, _ string) {
			apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", victims), 200, "")
		}},
		{"deletion", func(t *testing.T, e *apptest.Env, org, member string) {
			apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/passwords/"+
				e.PasswordID(org, member), nil), 200, "")
		}, func(t *testing.T, e *apptest.Env, org, member string) {
			if id := e.PasswordID(org, member); id != "" {
				t.Fatalf("the deleted password is back as %s", id)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
				member := e.CreateMember(org, "ada@acme.test")
				e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
				apptest.Want(t, e.ResetStart(org, "ada@acme.test", nil), 200, "")

				svc := existingResetService(t, e)
				acted, dummy := false, ""
				dummy = svc.WatchVerifies(func(encoded string) {
					if encoded != dummy && !acted {
						acted = true
						c.during(t, e, org, member)
					}
				})
				_, err := svc.ResetExisting(t.Context(), password.ExistingResetParams{Project: e.Project.Project,
					ClientIP: "203.0.113.7", OrganizationID: org, Email: "ada@acme.test",
					ExistingPassword: apptest.StrongPassword, NewPassword: attackers})
				if !acted {
					t.Fatal("the existing password was never verified")
				}
				if !apierr.Is(err, apierr.ResetPassword) {
					t.Fatalf("change with the password replaced during its check: %v, want reset_password", err)
				}
				c.after(t, e, org, member)
				if r := e.PasswordLogin(org, "ada@acme.test", attackers); r.Status == 200 {
					t.Fatalf("the refused change's password logs in: %s", r.Raw)
				}
			})
		})
	}
}
