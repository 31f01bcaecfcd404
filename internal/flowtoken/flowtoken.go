// Package flowtoken is what every browser flow (OAuth, SSO, the identity
// provider) must get right and so gets right once:
//
//   - tickets: stored, hashed, single-use, short-lived secrets (an OAuth
//     state, the token handed back to the customer's page, an SSO relay
//     state, an authorization code), each carrying the flow's own JSON and
//     optionally a PKCE challenge, with failed redemptions rate-limited;
//   - PKCE S256 (CheckPKCE);
//   - exact redirect-URL matching (Exact) and adding parameters to a
//     registered URL (WithQuery).
//
// Usage:
//
//	tok, err := flows.Issue(ctx, flowtoken.Issue{Kind: "oauth_state", ProjectID: p.ID,
//		TTL: 10 * time.Minute, LimitKey: p.ID + "|" + ip, Data: state})
//	...
//	t, err := flows.Redeem(ctx, flowtoken.Redeem{Kind: "oauth_state", Token: tok, LimitKey: ip})
//	if errors.Is(err, flowtoken.ErrInvalid) { ... the flow's own catalogue error ... }
//	err = t.Decode(&state)
//
// Redeem runs its own statements: call it outside a transaction (SQLite has
// one writer, and a failure must be counted even though the caller rolls
// back).
package flowtoken

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// Kind names one flow's tickets ("oauth_state", "sso_token", ...). A ticket
// is only ever redeemed as the kind it was issued as.
type Kind string

// MaxTTL bounds a ticket's life: these are the secrets of a browser round
// trip, not sessions.
const MaxTTL = time.Hour

// Limits. Issuing writes a row, so it is limited per caller; failed
// redemptions are guesses and are limited harder. Successful redemptions
// cost no write beyond spending the ticket.
//
// RedeemLimit's key is the redeemer's client address, so it is a
// per-client-address rule (like magic-link redemptions): on the backend
// face the redeemer is the customer's server, redeeming every one of its
// users' tickets from one address, and any visitor can make it redeem
// stale ones (a reload of a spent callback URL); counted there, twenty of
// them would refuse every valid ticket of the customer for the window.
// Tickets are random tokens, which cannot be guessed, so nothing is lost.
var (
	IssueLimit  = ratelimit.Rule{Name: "flow_issue", Limit: 120, Window: 10 * time.Minute}
	RedeemLimit = ratelimit.Rule{Name: "flow_redeem_fail", Limit: 20, Window: 10 * time.Minute, OnSuccess: ratelimit.Release,
		PerClientAddress: true}
)

// MaxDataBytes bounds a ticket's data (its JSON). Every flow bounds what
// its caller sends it (redirect URLs are registered ones, custom_scopes
// are capped); this is the backstop for a field a flow forgot, so that no
// request can make a ticket row of megabytes. The largest tickets, an
// OAuth login's identity and sealed provider tokens, are a few KB.
const MaxDataBytes = 64 << 10

// ErrDataTooLarge is a ticket whose data is over MaxDataBytes: refused
// whole (an invalid_request), never truncated.
var ErrDataTooLarge = errors.New("flowtoken: ticket data too large")

// ErrInvalid is every way a ticket can fail to redeem: unknown, expired,
// already used, another kind, or another project. Callers answer it with
// their flow's catalogue error; the reasons are deliberately not told apart.
var ErrInvalid = errors.New("flowtoken: invalid, expired or used ticket")

// ErrSpent is the one refusal a flow may need to tell apart: the ticket
// is of the kind (and project, when the redemption names one) asked for,
// has not expired, was redeemed already, and is presented with the
// verifier of its PKCE challenge, if it has one. It matches ErrInvalid
// (errors.Is), so every caller that does not look for it answers it as
// before. An OAuth code presented twice revokes what it issued (RFC 6749
// 4.1.2); an unknown, expired, swept or other project's code, or one
// presented without its verifier, is no evidence of that, and must
// revoke nothing.
var ErrSpent = fmt.Errorf("%w: already used", ErrInvalid)

// Store issues and redeems tickets.
type Store struct {
	db      *store.DB
	clock   clock.Clock
	limiter *ratelimit.Limiter
}

// New returns a ticket store.
func New(db *store.DB, c clock.Clock, l *ratelimit.Limiter) *Store {
	return &Store{db: db, clock: c, limiter: l}
}

// Issue describes a ticket to hand out.
type Issue struct {
	Kind      Kind
	ProjectID string
	TTL       time.Duration // > 0 and <= MaxTTL
	// Challenge is a PKCE S256 code challenge the redeemer must answer
	// with its verifier; "" for none.
	Challenge string
	// LimitKey identifies the caller for the issuing limit (e.g.
	// project|client IP); "" skips it (server-side issuance).
	LimitKey string
	// Data is the flow's state, stored as JSON and returned by Redeem.
	Data any
}

// Issue stores a new ticket and returns it; only its hash is kept.
func (s *Store) Issue(ctx context.Context, in Issue) (string, error) {
	return s.IssueIn(ctx, s.db, in)
}

// IssueIn is Issue inside the caller's transaction q (the ticket then
// exists only if the transaction commits).
func (s *Store) IssueIn(ctx context.Context, q store.Querier, in Issue) (string, error) {
	if in.Kind == "" || in.ProjectID == "" {
		return "", errors.New("flowtoken: issue: kind and project are required")
	}
	if in.TTL <= 0 || in.TTL > MaxTTL {
		return "", fmt.Errorf("flowtoken: issue %s: ttl %s out of range", in.Kind, in.TTL)
	}
	data, err := json.Marshal(in.Data)
	if err != nil {
		return "", fmt.Errorf("flowtoken: issue %s: encode: %w", in.Kind, err)
	}
	if len(data) > MaxDataBytes {
		return "", apierr.Wrap(apierr.InvalidRequest, fmt.Errorf("%w: %s: %d bytes", ErrDataTooLarge, in.Kind, len(data))).
			WithMessage("The request carries more than a login flow keeps between its steps.")
	}
	if in.LimitKey != "" {
		if err := s.limiter.AllowIn(ctx, q, scoped(IssueLimit, in.Kind), in.LimitKey); err != nil {
			return "", err
		}
	}
	token := ids.Token()
	now := s.clock.Now()
	_, err = q.ExecContext(ctx, `INSERT INTO flow_tickets (ticket_hash, kind, project_id, pkce_code_challenge, data,
		created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`, ids.Hash(token), string(in.Kind), in.ProjectID,
		in.Challenge, string(data), store.Millis(now), store.Millis(now.Add(in.TTL)))
	if err != nil {
		return "", fmt.Errorf("flowtoken: issue %s: %w", in.Kind, store.MapError(err))
	}
	return token, nil
}

// Redeem describes a redemption.
type Redeem struct {
	Kind  Kind
	Token string
	// ProjectID, when set, must be the ticket's project (API calls know
	// their project; a provider's callback learns it from the ticket).
	ProjectID string
	// Verifier answers the ticket's PKCE challenge, if it has one.
	Verifier string
	// LimitKey identifies the redeemer by its client address (e.g.
	// project|client IP): its failed attempts are counted, and it is
	// refused once over RedeemLimit (not on the backend face, see
	// RedeemLimit).
	LimitKey string
}

// Ticket is a redeemed ticket.
type Ticket struct {
	ProjectID string
	IssuedAt  time.Time
	data      []byte
}

// Decode unmarshals the ticket's data into v.
func (t *Ticket) Decode(v any) error {
	if err := json.Unmarshal(t.data, v); err != nil {
		return fmt.Errorf("flowtoken: decode: %w", err)
	}
	return nil
}

// Redeem spends a ticket and returns it. PKCE is checked before the ticket
// is spent, so someone holding an intercepted ticket without the verifier
// can neither use it nor burn it for its owner, nor, once it is spent,
// pass it off as replayed (ErrSpent). Errors: ErrInvalid (wrapped;
// ErrSpent, which matches it, when the ticket was already redeemed),
// CheckPKCE's refusals (IsPKCEFailure), apierr too_many_requests, or a
// store failure.
func (s *Store) Redeem(ctx context.Context, r Redeem) (*Ticket, error) {
	var t *Ticket
	err := s.limiter.Guard(ctx, func() error {
		var err error
		t, err = s.redeem(ctx, s.db.Read(), s.db, r)
		return err
	}, redeemFailure, ratelimit.For(scoped(RedeemLimit, r.Kind), r.LimitKey))
	return t, err
}

// RedeemThen spends a ticket and runs then in the same write transaction,
// which commits only if then succeeds: what the ticket pays for is
// written exactly when it is spent. While the transaction is open, a
// concurrent redemption of the same ticket waits on the spent row and is
// then refused (ErrSpent) once this one commits, so whatever that
// refusal does next (an OAuth code presented twice revokes what it
// issued, RFC 6749 4.1.2) sees this transaction's writes. When then
// fails the ticket stays unspent: nothing was issued for it. Errors are
// Redeem's and then's.
func (s *Store) RedeemThen(ctx context.Context, r Redeem, then func(q store.Querier, t *Ticket) error) error {
	return s.limiter.GuardIn(ctx, func(q store.Querier) error {
		t, err := s.redeem(ctx, q, q, r)
		if err != nil {
			return err
		}
		return then(q, t)
	}, redeemFailure, ratelimit.For(scoped(RedeemLimit, r.Kind), r.LimitKey))
}

// redeemFailure tells a wrong or spent ticket, which counts against the
// redeemer, from anything else.
func redeemFailure(err error) bool { return errors.Is(err, ErrInvalid) || IsPKCEFailure(err) }

// redeem reads the ticket through read and spends it through write.
func (s *Store) redeem(ctx context.Context, read, write store.Querier, r Redeem) (*Ticket, error) {
	if r.Token == "" {
		return nil, ErrInvalid
	}
	now := s.clock.Now()
	hash := ids.Hash(r.Token)
	var kind, projectID, challenge, data string
	var created, expires int64
	var used *int64
	err := read.QueryRowContext(ctx, `SELECT kind, project_id, pkce_code_challenge, data, created_at, expires_at,
		used_at FROM flow_tickets WHERE ticket_hash = $1`, hash).
		Scan(&kind, &projectID, &challenge, &data, &created, &expires, &used)
	if err != nil {
		if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
			return nil, ErrInvalid
		}
		return nil, fmt.Errorf("flowtoken: redeem %s: %w", r.Kind, err)
	}
	if kind != string(r.Kind) || (r.ProjectID != "" && projectID != r.ProjectID) || !now.Before(store.Time(expires)) {
		return nil, ErrInvalid
	}
	if used != nil {
		// A redeemed ticket is evidence of a replay (ErrSpent, on which an
		// OAuth code's reuse revokes what it issued) only when presented
		// with its verifier: the code alone may have leaked (a log, a
		// referrer, a hostile app on the redirect), and someone holding it
		// without the verifier must not be able to end what its owner was
		// issued (RFC 9700 2.1.1, 4.1.2). Without it, it is just invalid.
		if CheckPKCE(challenge, r.Verifier, "flow") != nil {
			return nil, ErrInvalid
		}
		return nil, ErrSpent
	}
	if err := CheckPKCE(challenge, r.Verifier, "flow"); err != nil {
		return nil, err
	}
	res, err := write.ExecContext(ctx, `UPDATE flow_tickets SET used_at = $1
		WHERE ticket_hash = $2 AND used_at IS NULL AND expires_at > $1`, store.Millis(now), hash)
	if err != nil {
		return nil, fmt.Errorf("flowtoken: spend %s: %w", r.Kind, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		// A concurrent redemption won: the row was read unexpired at now,
		// and the sweeper removes only rows long expired.
		return nil, ErrSpent
	}
	return &Ticket{ProjectID: projectID, IssuedAt: store.Time(created), data: []byte(data)}, nil
}

// Sweeps offers the sweeper (app.Sweeper) the tickets that expired more
// than olderThan ago.
func (s *Store) Sweeps(olderThan time.Duration) []sweeper.Sweepable {
	return []sweeper.Sweepable{sweeper.Expired{DB: s.db, Table: "flow_tickets", Key: "ticket_hash", Column: "expires_at", Keep: olderThan}}
}

// Sweep runs Sweeps once.
func (s *Store) Sweep(ctx context.Context, olderThan time.Duration) error {
	if _, err := sweeper.Sweep(ctx, s.clock.Now(), s.Sweeps(olderThan)...); err != nil {
		return fmt.Errorf("flowtoken: %w", err)
	}
	return nil
}

// scoped gives each kind its own counters.
func scoped(r ratelimit.Rule, k Kind) ratelimit.Rule {
	r.Name += "_" + string(k)
	return r
}
