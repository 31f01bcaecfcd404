package password_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A reset by email takes an address's rows in one order: the member's row
// (HoldMemberToSpend), then the password's, then the lockout counters it
// lifts. A login that stored an upgraded hash, a change of a password by
// the existing one, and a migrate each wrote the password's row and then
// the member's (marking the address verified); the logins also settled
// their attempt before writing the password. With a reset between two
// such steps PostgreSQL found a deadlock, aborted one side after
// deadlock_timeout and store.Tx ran it again. Each test takes one step of
// the reset, lets the request run until it waits, takes the reset's next
// step, and fails unless each side ran once. The address's member in
// "acme" is unverified, so each request in it writes the member's row.

// lockOrderRace is a PostgreSQL server with ada@acme.test an unverified
// member of acme, whose address has a bcrypt password (imported through
// another organization, which verified only that organization's member).
func lockOrderRace(t *testing.T) (e *apptest.Env, org, member string) {
	t.Helper()
	e = apptest.New(t, apptest.Postgres(t), nil)
	org = e.CreateOrg("acme", "NOT_ALLOWED", nil)
	other := e.CreateOrg("other", "NOT_ALLOWED", nil)
	member = e.CreateMember(org, "ada@acme.test")
	r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": other,
		"email_address": "ada@acme.test", "hash": string(mustBcrypt(t)), "hash_type": "bcrypt"})
	apptest.Want(t, r, 200, "")
	return e, org, member
}

// resetStep is one step of a reset by email, inside its transaction.
type resetStep func(q store.Querier) error

// holdMember is a reset's first step: the member's row.
func holdMember(e *apptest.Env, member string) resetStep {
	return func(q store.Querier) error { return e.App.Orgs.HoldMemberToSpend(context.Background(), q, member) }
}

// writePassword is the reset storing the address's new password.
func writePassword(e *apptest.Env) resetStep {
	return func(q store.Querier) error {
		_, err := q.ExecContext(context.Background(), `UPDATE member_passwords SET updated_at = updated_at + 1
			WHERE project_id = $1 AND email_address = $2`, e.Project.Project.ID, "ada@acme.test")
		return err
	}
}

// liftLockout is the reset lifting the address's password lockout
// (ratelimit.Limiter.Unlock of EmailIPLockout).
func liftLockout(e *apptest.Env) resetStep {
	return func(q store.Querier) error {
		return e.App.Limiter.Unlock(context.Background(), q, password.EmailIPLockout,
			ratelimit.EmailSubject(e.Project.Project.ID, "ada@acme.test"))
	}
}

// duringReset runs request while a transaction has taken a reset's
// earlier step (first), and then takes its later one (then) once request
// waits or is done. It fails the test unless the request succeeded and
// neither side ran twice. The request's runs are counted by its writes of
// a new hash and by its settlings of the address's lockout counter
// (sequences, which a rolled-back transaction does not take back; a row
// trigger fires once the row is locked, so a write that waited and was
// aborted is not counted, and the settling lets the retry of a request
// that waited on the password be seen).
func duringReset(t *testing.T, e *apptest.Env, first, then resetStep, request func() apptest.Resp) {
	t.Helper()
	ctx := t.Context()
	for _, ddl := range []string{
		`CREATE SEQUENCE hash_writes`,
		`CREATE SEQUENCE lockout_settles`,
		`CREATE FUNCTION count_write() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN PERFORM nextval(TG_ARGV[0]); RETURN COALESCE(NEW, OLD); END'`,
		`CREATE TRIGGER count_hash_write BEFORE UPDATE ON member_passwords FOR EACH ROW
			WHEN (OLD.hash IS DISTINCT FROM NEW.hash) EXECUTE FUNCTION count_write('hash_writes')`,
		`CREATE TRIGGER count_lockout_settle BEFORE DELETE ON attempt_counters FOR EACH ROW
			WHEN (OLD.bucket LIKE 'pw_email_ip:%') EXECUTE FUNCTION count_write('lockout_settles')`,
	} {
		if _, err := e.App.DB.ExecContext(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	var resets atomic.Int32
	resetErr, reqErr := storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		resets.Add(1)
		return first(q)
	}, func() error {
		if r := request(); r.Status != 200 {
			return fmt.Errorf("%d %s", r.Status, r.Raw)
		}
		return nil
	}, then)
	if resetErr != nil || reqErr != nil {
		t.Fatalf("reset: %v; request: %v", resetErr, reqErr)
	}
	writes, settles := sequenceValue(t, e, "hash_writes"), sequenceValue(t, e, "lockout_settles")
	if resets.Load() != 1 || writes != 1 || settles > 1 {
		t.Fatalf("the reset ran %d times; the request wrote its hash %d times and settled its lockout counter %d times: "+
			"they deadlocked and one was run again", resets.Load(), writes, settles)
	}
}

// sequenceValue is how many values the sequence gave out.
func sequenceValue(t *testing.T, e *apptest.Env, name string) int64 {
	t.Helper()
	var n int64
	if err := e.App.DB.Read().QueryRowContext(t.Context(), `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestHashUpgradeAtLoginDuringResetDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	e, org, member := lockOrderRace(t)
	duringReset(t, e, holdMember(e, member), writePassword(e), func() apptest.Resp { return e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword) })
}

func TestExistingPasswordResetDuringResetDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	e, org, member := lockOrderRace(t)
	duringReset(t, e, holdMember(e, member), writePassword(e), func() apptest.Resp {
		return e.SDK(http.MethodPost, "/b2b/passwords/existing_password/reset", map[string]any{"organization_id": org,
			"email_address": "ada@acme.test", "existing_password": apptest.StrongPassword,
			"new_password": "Other-Walrus-Trombone-77", "session_duration_minutes": 60}, "")
	})
}

func TestMigrateDuringResetDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	e, org, member := lockOrderRace(t)
	h, err := bcryptOf("Other-Walrus-Trombone-77")
	if err != nil {
		t.Fatal(err)
	}
	duringReset(t, e, holdMember(e, member), writePassword(e), func() apptest.Resp {
		return e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": org,
			"email_address": "ada@acme.test", "hash": h, "hash_type": "bcrypt"})
	})
}

// bcryptOf is a cheap bcrypt hash of pw, to import.
func bcryptOf(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), 4)
	return string(h), err
}

// A discovery login holds no member: it upgrades the hash and settles its
// attempt (lifting its own failures at the address), a reset stores the
// password and then lifts the address's lockout. The login settled first
// and upgraded after, the opposite order.
func TestHashUpgradeAtDiscoveryLoginDuringResetDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	e, _, _ := lockOrderRace(t)
	duringReset(t, e, writePassword(e), liftLockout(e), func() apptest.Resp {
		return e.SDK(http.MethodPost, "/b2b/passwords/discovery/authenticate", map[string]any{
			"email_address": "ada@acme.test", "password": apptest.StrongPassword}, "")
	})
}
