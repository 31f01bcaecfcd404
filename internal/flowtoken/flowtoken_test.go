package flowtoken_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

type fixture struct {
	ctx     context.Context
	db      *store.DB
	clk     *clock.Fake
	flows   *flowtoken.Store
	project string
}

func setup(t *testing.T, db *store.DB) *fixture {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	projects := project.NewStore(db, clk, secretbox.NewRandom())
	projects.UseKeySource(testkeys.Source)
	p, err := projects.Create(ctx, project.CreateParams{Name: "P", Env: ids.Test})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{ctx: ctx, db: db, clk: clk, flows: flowtoken.New(db, clk, ratelimit.New(db, clk)), project: p.Project.ID}
}

// issue issues a ticket that must be issued and returns its token.
func (f *fixture) issue(t *testing.T, in flowtoken.Issue) string {
	t.Helper()
	tok, err := f.flows.Issue(f.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type state struct {
	Provider string `json:"provider"`
	Org      string `json:"org"`
}

func TestIssueRedeemOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Minute,
			LimitKey: "ip", Data: state{Provider: "google", Org: "o1"}})
		var stored string
		if err := db.Read().QueryRowContext(f.ctx, `SELECT ticket_hash FROM flow_tickets`).Scan(&stored); err != nil || stored != ids.Hash(tok) {
			t.Fatalf("stored %q, want the hash of the ticket (%v)", stored, err)
		}
		tk, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: tok, LimitKey: "ip"})
		if err != nil {
			t.Fatal(err)
		}
		var got state
		if err := tk.Decode(&got); err != nil || got.Provider != "google" || got.Org != "o1" || tk.ProjectID != f.project {
			t.Fatalf("decoded %+v in %s (%v)", got, tk.ProjectID, err)
		}
		if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: tok, LimitKey: "ip"}); !errors.Is(err, flowtoken.ErrInvalid) {
			t.Fatalf("second redemption: %v, want ErrInvalid", err)
		}
	})
}

func TestRefusals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		issue := func(challenge string) string {
			tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Minute, Challenge: challenge, Data: 1})
			return tok
		}
		redeem := func(r flowtoken.Redeem) error {
			if r.Kind == "" {
				r.Kind = "k"
			}
			r.LimitKey = "ip"
			_, err := f.flows.Redeem(f.ctx, r)
			return err
		}
		if err := redeem(flowtoken.Redeem{Token: "nope"}); !errors.Is(err, flowtoken.ErrInvalid) {
			t.Fatalf("unknown: %v", err)
		}
		tok := issue("")
		if err := redeem(flowtoken.Redeem{Kind: "other", Token: tok}); !errors.Is(err, flowtoken.ErrInvalid) {
			t.Fatalf("other kind: %v", err)
		}
		if err := redeem(flowtoken.Redeem{Token: tok, ProjectID: "project-test-other"}); !errors.Is(err, flowtoken.ErrInvalid) {
			t.Fatalf("other project: %v", err)
		}
		if err := redeem(flowtoken.Redeem{Token: tok, ProjectID: f.project}); err != nil {
			t.Fatalf("refusals must not spend the ticket: %v", err)
		}
		expired := issue("")
		f.clk.Advance(time.Minute)
		if err := redeem(flowtoken.Redeem{Token: expired}); !errors.Is(err, flowtoken.ErrInvalid) {
			t.Fatalf("expired: %v", err)
		}
		verifier := ids.Token()
		pk := issue(flowtoken.S256(verifier))
		if err := redeem(flowtoken.Redeem{Token: pk}); !apierr.Is(err, apierr.PKCEExpectedVerifier) {
			t.Fatalf("missing verifier: %v", err)
		}
		if err := redeem(flowtoken.Redeem{Token: pk, Verifier: ids.Token()}); !apierr.Is(err, apierr.PKCEMismatch) {
			t.Fatalf("wrong verifier: %v", err)
		}
		if err := redeem(flowtoken.Redeem{Token: pk, Verifier: verifier}); err != nil {
			t.Fatalf("PKCE failures must not burn the ticket: %v", err)
		}
		if _, err := f.flows.Issue(f.ctx, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: 2 * time.Hour}); err == nil {
			t.Fatal("a ticket longer than MaxTTL was issued")
		}
	})
}

func TestFailedRedemptionsAreLimited(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Hour, Data: 1})
		for i := 0; i < flowtoken.RedeemLimit.Limit; i++ {
			if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: "guess", LimitKey: "ip"}); !errors.Is(err, flowtoken.ErrInvalid) {
				t.Fatalf("guess %d: %v", i, err)
			}
		}
		// Over the limit even the right ticket is refused for this caller,
		// without being checked or spent; others are unaffected.
		if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: tok, LimitKey: "ip"}); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("over the limit: %v", err)
		}
		if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: tok, LimitKey: "other-ip"}); err != nil {
			t.Fatalf("another caller: %v", err)
		}
	})
}

// On the backend face the redeemer is the customer's server, one address
// for all its users: its failures are not counted against that address
// (RedeemLimit is a per-client-address rule), or a visitor's stale tickets
// would refuse every valid one of the customer.
func TestFailedRedemptionsOnBehalfOfUsersDoNotLockOut(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Hour, Data: 1})
		ctx := ratelimit.OnBehalf(f.ctx)
		for i := range flowtoken.RedeemLimit.Limit + 1 {
			if _, err := f.flows.Redeem(ctx, flowtoken.Redeem{Kind: "k", Token: "stale", LimitKey: "server-ip"}); !errors.Is(err, flowtoken.ErrInvalid) {
				t.Fatalf("stale ticket %d from the customer's server: %v", i+1, err)
			}
		}
		if _, err := f.flows.Redeem(ctx, flowtoken.Redeem{Kind: "k", Token: tok, LimitKey: "server-ip"}); err != nil {
			t.Fatalf("a valid ticket after the stale ones: %v", err)
		}
	})
}

func TestConcurrentRedemptionHasOneWinner(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Minute, Data: 1})
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: tok, LimitKey: "ip"}); err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("%d redemptions won, want 1", wins)
		}
	})
}

func TestSweep(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		for _, ttl := range []time.Duration{time.Minute, time.Hour} {
			if _, err := f.flows.Issue(f.ctx, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: ttl}); err != nil {
				t.Fatal(err)
			}
		}
		// A backlog past one batch of the sweep (sweeper.Batch).
		if _, err := db.ExecContext(f.ctx, fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
			INSERT INTO flow_tickets (ticket_hash, kind, project_id, data, created_at, expires_at)
			SELECT 'old' || i, 'k', $1, '{}', %[1]d, %[1]d FROM n`, store.Millis(f.clk.Now())), f.project); err != nil {
			t.Fatal(err)
		}
		f.clk.Advance(30 * time.Minute)
		if err := f.flows.Sweep(f.ctx, 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.Read().QueryRowContext(f.ctx, `SELECT COUNT(*) FROM flow_tickets`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("%d tickets left (%v), want the live one", n, err)
		}
	})
}

func TestPKCEAndRedirects(t *testing.T) {
	// RFC 7636 appendix B.
	if got := flowtoken.S256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"); got != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
		t.Fatalf("S256 = %s", got)
	}
	if err := flowtoken.CheckPKCE("", "anything", "flow"); err != nil {
		t.Fatalf("no challenge: %v", err)
	}
	if !flowtoken.ValidChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM") || flowtoken.ValidChallenge("short") ||
		flowtoken.ValidChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM") {
		t.Fatal("ValidChallenge")
	}
	reg := []string{"https://app.test/auth", "https://app.test/auth?x=1"}
	for _, c := range []struct {
		u  string
		ok bool
	}{{"https://app.test/auth", true}, {"https://app.test/auth?x=1", true}, {"https://app.test/auth/", false},
		{"https://APP.test/auth", false}, {"https://app.test/auth#f", false}, {"https://app.test/authx", false}, {"", false}} {
		if flowtoken.Exact(reg, c.u) != c.ok {
			t.Errorf("Exact(%q) = %v", c.u, !c.ok)
		}
	}
	got, err := flowtoken.WithQuery("https://app.test/auth?x=1&token=old", map[string][]string{"token": {"t"}, "stytch_token_type": {"oauth"}})
	if err != nil || got != "https://app.test/auth?x=1&stytch_token_type=oauth&token=t" {
		t.Fatalf("WithQuery = %s (%v)", got, err)
	}
	got, err = flowtoken.TokenLink("https://app.test/reset?x=1&token=old&stytch_token_type=old", "discovery_reset", "t",
		map[string][]string{"stytch_redirect_type": {"reset_password"}})
	if err != nil || got != "https://app.test/reset?x=1&stytch_redirect_type=reset_password&stytch_token_type=discovery_reset&token=t" {
		t.Fatalf("TokenLink = %s (%v)", got, err)
	}
	if _, err := flowtoken.TokenLink("https://app.test/%zz", "sso", "t", nil); err == nil {
		t.Fatal("TokenLink took an unparsable target")
	}
}

// Issue refuses a ticket without a kind or project, or with a lifetime that
// is not positive (a TTL of zero would store a ticket that is born expired,
// a negative one a ticket that silently never works).
func TestIssueRefusesIncompleteTickets(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		for _, in := range []flowtoken.Issue{
			{Kind: "k", ProjectID: f.project, TTL: 0},
			{Kind: "k", ProjectID: f.project, TTL: -time.Minute},
			{ProjectID: f.project, TTL: time.Minute},
			{Kind: "k", TTL: time.Minute},
		} {
			if _, err := f.flows.Issue(f.ctx, in); err == nil {
				t.Errorf("Issue(%+v) succeeded", in)
			}
		}
	})
}

// A ticket's data is capped (MaxDataBytes), the backstop for a field a
// flow forgot to bound: over it, Issue refuses whole with an
// invalid_request, stores nothing and counts no issuance; at it, the
// ticket is issued and redeems to the same data.
func TestIssueRefusesOversizedData(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		// Data encodes as a JSON string: its two quotes and the text.
		data := func(n int) string { return strings.Repeat("a", n-2) }
		_, err := f.flows.Issue(f.ctx, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Minute, LimitKey: "ip",
			Data: data(flowtoken.MaxDataBytes + 1)})
		if !errors.Is(err, flowtoken.ErrDataTooLarge) || !apierr.Is(err, apierr.InvalidRequest) {
			t.Fatalf("oversized: %v, want ErrDataTooLarge as invalid_request", err)
		}
		var n int
		if err := db.Read().QueryRowContext(f.ctx, `SELECT COUNT(*) FROM flow_tickets`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d tickets stored (%v)", n, err)
		}
		tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Minute, LimitKey: "ip",
			Data: data(flowtoken.MaxDataBytes)})
		tk, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: tok})
		var got string
		if err != nil || tk.Decode(&got) != nil || len(got) != flowtoken.MaxDataBytes-2 {
			t.Fatalf("at the cap: %v, %d bytes", err, len(got))
		}
	})
}

// Issuing with a LimitKey is limited per caller and per kind: past
// IssueLimit the caller is refused, while another caller, and the same
// caller for another kind, still get tickets.
func TestIssueIsLimitedPerCallerAndKind(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		issue := func(kind flowtoken.Kind, key string) error {
			_, err := f.flows.Issue(f.ctx, flowtoken.Issue{Kind: kind, ProjectID: f.project, TTL: time.Minute, LimitKey: key})
			return err
		}
		for i := 0; i < flowtoken.IssueLimit.Limit; i++ {
			if err := issue("k", "ip"); err != nil {
				t.Fatalf("issue %d: %v", i, err)
			}
		}
		if err := issue("k", "ip"); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("over the limit: %v, want too_many_requests", err)
		}
		if err := issue("k", "other-ip"); err != nil {
			t.Fatalf("another caller: %v", err)
		}
		if err := issue("other-kind", "ip"); err != nil {
			t.Fatalf("the same caller, another kind: %v", err)
		}
	})
}

// Failed redemptions are counted per kind: guessing one flow's tickets does
// not lock the caller out of another flow. And wrong PKCE verifiers count
// as failures, so a verifier cannot be guessed without limit.
func TestRedeemLimitPerKindAndCountsPKCEFailures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		other := f.issue(t, flowtoken.Issue{Kind: "other", ProjectID: f.project, TTL: time.Hour, Data: 1})
		verifier := ids.Token()
		pk := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Hour,
			Challenge: flowtoken.S256(verifier), Data: 1})
		for i := 0; i < flowtoken.RedeemLimit.Limit; i++ {
			if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: pk, Verifier: ids.Token(), LimitKey: "ip"}); !apierr.Is(err, apierr.PKCEMismatch) {
				t.Fatalf("wrong verifier %d: %v", i, err)
			}
		}
		if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: pk, Verifier: verifier, LimitKey: "ip"}); !apierr.Is(err, apierr.TooManyRequests) {
			t.Fatalf("after %d wrong verifiers: %v, want too_many_requests", flowtoken.RedeemLimit.Limit, err)
		}
		if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "other", Token: other, LimitKey: "ip"}); err != nil {
			t.Fatalf("another kind for the same caller: %v", err)
		}
	})
}

// A spent or expired ticket is ErrInvalid even when it carries a PKCE
// challenge and the verifier is missing: the ticket's state is checked
// before PKCE, so callers answer with their flow's invalid-ticket error
// rather than pkce_mismatch for a ticket that can no longer work.
func TestSpentOrExpiredPKCETicketIsInvalid(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		verifier := ids.Token()
		issue := func(ttl time.Duration) string {
			tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: ttl,
				Challenge: flowtoken.S256(verifier), Data: 1})
			return tok
		}
		spent, expired := issue(time.Hour), issue(time.Minute)
		if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: spent, Verifier: verifier, LimitKey: "ip"}); err != nil {
			t.Fatal(err)
		}
		f.clk.Advance(time.Minute)
		for name, tok := range map[string]string{"spent": spent, "expired": expired} {
			if _, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: tok, LimitKey: "ip"}); !errors.Is(err, flowtoken.ErrInvalid) {
				t.Errorf("%s ticket without its verifier: %v, want ErrInvalid", name, err)
			}
		}
	})
}

// StartChallenge: a challenge is required when the project says so, and a
// given one must have the S256 shape, so a garbled challenge is refused at
// the start instead of failing every redemption at the end.
// CheckPKCE never accepts an empty verifier, not even against the
// challenge of the empty string; Exact never matches an empty URL, not
// even against an empty registration.
func TestPKCEStartAndEmptyInputs(t *testing.T) {
	good := flowtoken.S256(ids.Token())
	if err := flowtoken.StartChallenge("pkce_code_challenge", "", true); !apierr.Is(err, apierr.InvalidPKCECodeChallenge) {
		t.Errorf("required and missing: %v", err)
	}
	for _, c := range []string{"short", "plain-verifier-sent-as-challenge", good + "x", good[:42] + "+"} {
		if err := flowtoken.StartChallenge("pkce_code_challenge", c, false); !apierr.Is(err, apierr.InvalidPKCECodeChallenge) {
			t.Errorf("malformed challenge %q: %v, want invalid_pkce_code_challenge", c, err)
		}
	}
	if err := flowtoken.StartChallenge("pkce_code_challenge", "", false); err != nil {
		t.Errorf("optional and missing: %v", err)
	}
	if err := flowtoken.StartChallenge("pkce_code_challenge", good, true); err != nil {
		t.Errorf("a valid challenge: %v", err)
	}
	if err := flowtoken.CheckPKCE(flowtoken.S256(""), "", "flow"); !apierr.Is(err, apierr.PKCEExpectedVerifier) {
		t.Errorf("empty verifier against S256(\"\"): %v", err)
	}
	if flowtoken.Exact([]string{""}, "") {
		t.Error("Exact matched an empty URL")
	}
}

// Only a ticket that was redeemed already, and is otherwise one the
// redemption could have spent (its kind, its project, unexpired), is
// ErrSpent: an OAuth code presented twice revokes what it issued, and
// nothing else may. Every refusal, ErrSpent included, is still ErrInvalid
// for the callers that do not tell them apart.
func TestSpentIsToldApart(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		redeem := func(r flowtoken.Redeem) error {
			r.LimitKey = "ip"
			_, err := f.flows.Redeem(f.ctx, r)
			if err != nil && !errors.Is(err, flowtoken.ErrInvalid) {
				t.Fatalf("%+v: %v is not ErrInvalid", r, err)
			}
			return err
		}
		tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Minute, Data: 1})
		if err := redeem(flowtoken.Redeem{Kind: "k", Token: tok, ProjectID: f.project}); err != nil {
			t.Fatal(err)
		}
		for name, r := range map[string]flowtoken.Redeem{
			"unknown":       {Kind: "k", Token: "nope", ProjectID: f.project},
			"other kind":    {Kind: "other", Token: tok, ProjectID: f.project},
			"other project": {Kind: "k", Token: tok, ProjectID: "project-test-other"},
		} {
			if err := redeem(r); errors.Is(err, flowtoken.ErrSpent) || err == nil {
				t.Fatalf("%s: %v, want ErrInvalid but not ErrSpent", name, err)
			}
		}
		for _, p := range []string{f.project, ""} {
			if err := redeem(flowtoken.Redeem{Kind: "k", Token: tok, ProjectID: p}); !errors.Is(err, flowtoken.ErrSpent) {
				t.Fatalf("spent (project %q): %v, want ErrSpent", p, err)
			}
		}
		// Past its expiry a spent ticket is just invalid: a late replay is
		// no evidence of a stolen code.
		f.clk.Advance(time.Minute)
		if err := redeem(flowtoken.Redeem{Kind: "k", Token: tok, ProjectID: f.project}); errors.Is(err, flowtoken.ErrSpent) || err == nil {
			t.Fatalf("spent and expired: %v, want ErrInvalid but not ErrSpent", err)
		}
	})
}

// A spent ticket with a PKCE challenge is ErrSpent only when presented
// with its verifier: without it, or with a wrong one, it is just invalid
// (and no PKCE error either), so someone holding a leaked OAuth code
// without the verifier cannot make its reuse revoke the tokens of the
// client that redeemed it.
func TestSpentNeedsItsVerifier(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := setup(t, db)
		verifier := ids.Token()
		tok := f.issue(t, flowtoken.Issue{Kind: "k", ProjectID: f.project, TTL: time.Minute,
			Challenge: flowtoken.S256(verifier), Data: 1})
		redeem := func(v string) error {
			_, err := f.flows.Redeem(f.ctx, flowtoken.Redeem{Kind: "k", Token: tok, ProjectID: f.project, Verifier: v, LimitKey: "ip"})
			return err
		}
		if err := redeem(verifier); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"no verifier": "", "wrong verifier": ids.Token()} {
			if err := redeem(v); !errors.Is(err, flowtoken.ErrInvalid) || errors.Is(err, flowtoken.ErrSpent) {
				t.Fatalf("spent, %s: %v, want ErrInvalid but not ErrSpent", name, err)
			}
		}
		if err := redeem(verifier); !errors.Is(err, flowtoken.ErrSpent) {
			t.Fatalf("spent, its verifier: %v, want ErrSpent", err)
		}
	})
}
