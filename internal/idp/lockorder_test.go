package idp_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// holdSpends makes every spend of an idp_tokens row (used_at set) wait,
// inside its transaction, until another backend waits for it
// (holdUntilWaited), and returns a function that waits until a spend is
// held. It counts the spend statements run, committed or rolled back, in
// the sequence token_spends.
func holdSpends(t *testing.T, e *apptest.Env) (held func()) {
	t.Helper()
	return holdUntilWaited(t, e, "hold_spend", `CREATE TRIGGER hold_spend AFTER UPDATE ON idp_tokens FOR EACH ROW
			WHEN (OLD.used_at IS NULL AND NEW.used_at IS NOT NULL) EXECUTE FUNCTION hold_spend()`,
		`CREATE SEQUENCE token_spends`,
		`CREATE FUNCTION count_spend() RETURNS trigger AS $$
		BEGIN
			IF current_query() LIKE 'UPDATE idp_tokens SET used_at%' THEN PERFORM nextval('token_spends'); END IF;
			RETURN NULL;
		END $$ LANGUAGE plpgsql`,
		`CREATE TRIGGER count_spend BEFORE UPDATE ON idp_tokens FOR EACH STATEMENT EXECUTE FUNCTION count_spend()`)
}

// holdUntilWaited creates the trigger function fn, which makes the
// statement firing it wait, inside its transaction, until another backend
// waits for that transaction (at most five seconds), then runs trigger
// (the CREATE TRIGGER that fires fn) and extra. It returns a function that
// waits until a firing is held, which drives an interleaving of two
// transactions without timing. Firings are counted in the sequence
// fn_count: sequences are not transactional and belong to the test's
// schema, which pg_stat_activity does not show (other tests share the
// server).
func holdUntilWaited(t *testing.T, e *apptest.Env, fn, trigger string, extra ...string) (held func()) {
	t.Helper()
	for _, stmt := range append([]string{
		`CREATE SEQUENCE ` + fn + `_count`,
		`CREATE FUNCTION ` + fn + `() RETURNS trigger AS $$
		DECLARE i int := 0;
		BEGIN
			PERFORM nextval('` + fn + `_count');
			LOOP
				PERFORM pg_stat_clear_snapshot();
				EXIT WHEN i >= 500 OR EXISTS (SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid)));
				PERFORM pg_sleep(0.01);
				i := i + 1;
			END LOOP;
			RETURN NEW;
		END $$ LANGUAGE plpgsql`,
		trigger,
	}, extra...) {
		if _, err := e.App.DB.ExecContext(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			var called bool
			if err := e.App.DB.Read().QueryRowContext(t.Context(), `SELECT is_called FROM `+fn+`_count`).Scan(&called); err != nil {
				t.Fatal(err)
			}
			if called {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no statement reached the %s trigger", fn)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// A refresh and an access token's exchange spend the token (a row lock
// on idp_tokens) and then hold the member's row (holdMember,
// session.Complete); an admin's address change updates the member's row
// and then revokes the member's tokens (ReleaseAddress). In opposite
// orders, a change landing between the two steps deadlocks with the
// spend: PostgreSQL aborts one after deadlock_timeout and store.Tx runs
// it again. holdSpends keeps the spend's transaction open just after the
// spend until the change waits for it, which drives that interleaving
// without timing: each side must run once, and the change then ends what
// the request obtained.
func TestTokenSpendAndAddressChangeDoNotDeadlock(t *testing.T) {
	t.Parallel()
	requests := []struct {
		name string
		// prepare obtains the credential and returns the request spending it.
		prepare func(f *fixture) func() apptest.Resp
	}{
		{"refresh", func(f *fixture) func() apptest.Resp {
			id, secret := f.client("first_party", nil)
			rt := f.grant(id, secret, "openid", "offline_access").Body["refresh_token"].(string)
			return func() apptest.Resp { return f.refresh(id, secret, rt, "") }
		}},
		{"exchange access token", func(f *fixture) func() apptest.Resp {
			id, secret := f.client("first_party", map[string]any{"full_access_allowed": true})
			at := f.grant(id, secret, "openid", "full_access").Body["access_token"].(string)
			return func() apptest.Resp { return exchangeAccessToken(f.e, at) }
		}},
	}
	for _, c := range requests {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := apptest.New(t, apptest.Postgres(t), nil)
			f := setup(t, e)
			run := c.prepare(f)
			ctx, held := t.Context(), holdSpends(t, e)
			answered := make(chan apptest.Resp, 1)
			go func() { answered <- run() }()
			held()
			var runs atomic.Int32
			err := e.App.DB.Tx(ctx, func(q store.Querier) error {
				runs.Add(1)
				return e.ChangeAddressIn(q, f.org, f.member, "someone-else@acme.test")
			})
			if err != nil {
				t.Fatalf("address change: %v", err)
			}
			apptest.Want(t, <-answered, 200, "") // it held the member first: the change waited for it
			var spends int
			if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT last_value FROM token_spends`).Scan(&spends); err != nil {
				t.Fatal(err)
			}
			if n := runs.Load(); n != 1 || spends != 1 {
				t.Fatalf("the address change ran %d times and the request spent %d times: they deadlocked and one was retried", n, spends)
			}
			f.wantNothingLive(t)
		})
	}
}
