package password_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/password/breach"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/store"
)

// txAfter runs before once, just before the spend's transaction begins:
// what another request does between a redemption's lookup of its token
// and its spend. Not inside the transaction: SQLite's one writer is taken
// at BEGIN, and on PostgreSQL the email reset holds the member's row,
// which the other redemption would wait for.
type txAfter struct {
	*store.DB
	before func()
	done   bool
}

func (w *txAfter) Tx(ctx context.Context, fn func(q store.Querier) error) error {
	if !w.done {
		w.done = true
		w.before()
	}
	return w.DB.Tx(ctx, fn)
}

// spendRaceService is a password service on e's database with what both
// token resets need (discovery included), at the tests' tiny argon2 cost.
// It is not e's own (the app keeps that unexported): the second
// redemption goes through e's server, as another request would.
func spendRaceService(t *testing.T, e *apptest.Env) *password.Service {
	t.Helper()
	a := e.App
	svc, err := password.New(password.Deps{DB: a.DB, Clock: a.Clock, Projects: a.Projects, Orgs: a.Orgs,
		Sessions: a.Sessions, Limiter: a.Limiter, Breach: breach.New("off", a.Clock, nil),
		Discovery: discovery.New(discovery.Deps{DB: a.DB, Clock: a.Clock, Projects: a.Projects, Orgs: a.Orgs,
			Sessions: a.Sessions, Mailer: a.Outbox, Limiter: a.Limiter, Box: a.Box}),
		Hashing: pwhash.Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// The passwords the two redemptions of one token set.
const (
	firstRedemption  = "Lantern-Pebble-Orchid-40"
	secondRedemption = "Gravel-Mitten-Sonnet-29"
)

// A reset looks its token up unlocked (lookupReset), hashes the new
// password, and only then spends the token (consumeReset). A redemption
// of the same token that lands in between must leave the first with
// nothing: the spend has to be conditional on the token being unused,
// not only unexpired, or both set a password and the first, committing
// last, replaces the second's and ends its session. Concurrent requests
// rarely meet in that gap (the limiter's reservation orders them), so the
// gap is forced here; the first redemption comes from another client
// address, so no limit stands between the two.
func TestEmailResetLosesToARedemptionBetweenItsLookupAndItsSpend(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		member := e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", nil), 200, "")
		token := e.ResetLink("ada@acme.test", password.TokenTypeReset)

		w := &txAfter{DB: e.App.DB, before: func() {
			apptest.Want(t, e.ResetWith(token, secondRedemption, nil), 200, "")
		}}
		_, err := spendRaceService(t, e).ResetByEmailVia(t.Context(), w, password.ResetParams{Project: e.Project.Project,
			ClientIP: "203.0.113.7", Token: token, Password: firstRedemption})
		if !w.done {
			t.Fatalf("the reset never reached its spend: %v", err)
		}
		if !apierr.Is(err, apierr.UnableToAuthMagicLink) {
			t.Fatalf("a reset whose token was redeemed after its lookup: %v, want unable_to_auth_magic_link (spent twice)", err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1`, member); n != 1 {
			t.Fatalf("%d sessions issued for one reset token, want 1", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1 AND revoked_at IS NULL`, member); n != 1 {
			t.Fatal("the second redemption's session was ended")
		}
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", firstRedemption), 401, "unauthorized_credentials")
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", secondRedemption), 200, "")
	})
}

// The same for a discovery reset, whose answer is a discovery IST.
func TestDiscoveryResetLosesToARedemptionBetweenItsLookupAndItsSpend(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start",
			map[string]any{"email_address": "ada@acme.test"}, ""), 200, "")
		token := e.ResetLink("ada@acme.test", password.TokenTypeDiscoveryReset)

		w := &txAfter{DB: e.App.DB, before: func() {
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset",
				map[string]any{"password_reset_token": token, "password": secondRedemption}, ""), 200, "")
		}}
		_, err := spendRaceService(t, e).ResetDiscoveryVia(t.Context(), w, password.ResetParams{Project: e.Project.Project,
			ClientIP: "203.0.113.7", Token: token, Password: firstRedemption})
		if !w.done {
			t.Fatalf("the reset never reached its spend: %v", err)
		}
		if !apierr.Is(err, apierr.UnableToAuthMagicLink) {
			t.Fatalf("a discovery reset whose token was redeemed after its lookup: %v, want unable_to_auth_magic_link (spent twice)", err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM intermediate_sessions WHERE email_address = $1`, "ada@acme.test"); n != 1 {
			t.Fatalf("%d discovery ISTs issued for one reset token, want 1", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM intermediate_sessions WHERE email_address = $1 AND used_at IS NULL`,
			"ada@acme.test"); n != 1 {
			t.Fatal("the second redemption's IST was spent")
		}
		login := func(pw string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/passwords/discovery/authenticate",
				map[string]any{"email_address": "ada@acme.test", "password": pw}, "")
		}
		apptest.Want(t, login(firstRedemption), 401, "unauthorized_credentials")
		apptest.Want(t, login(secondRedemption), 200, "")
	})
}
