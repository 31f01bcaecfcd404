package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/lograte"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// Sealer encrypts queued messages at rest (secretbox.Box).
type Sealer interface {
	Seal(plaintext, aad string) string
	Open(sealed, aad string) (string, error)
}

// Queue is the durable outbox of real email: Send stores the message
// (sealed) and returns, and Run delivers it through the wrapped Mailer
// with retries. No request waits on SMTP, a slow or down mail server only
// delays mail, and a replica that dies leaves its queued mail to the
// others.
type Queue struct {
	db    *store.DB
	clock clock.Clock
	box   Sealer
	next  Mailer
	log   *slog.Logger
	wake  chan struct{}
	// Workers is how many messages are handed to the Mailer at once.
	Workers int
}

// Delivery limits.
const (
	queueClaim   = 64               // rows claimed per round
	queueLease   = 2 * time.Minute  // a claim's lifetime, for a replica that dies mid-send
	queueTimeout = 30 * time.Second // one delivery attempt
	queueTries   = 6                // for a message without a lifetime (Email.ValidFor); then it is dropped
	queuePoll    = time.Second      // how often other replicas' mail is looked for
	// queueLife bounds how long a message with a lifetime is retried:
	// an invitation is good for a week, but a server that has refused it
	// for a day (as a mailbox it does not know, without the enhanced code
	// that would drop it at once) is not asked seventy more times.
	queueLife = 24 * time.Hour
)

// retryAfter is the wait before attempt n+1: 5 s, 20 s, 1 m 20 s, ...
func retryAfter(n int) time.Duration { return 5 * time.Second << (2 * min(n-1, 4)) }

// NewQueue returns a queue delivering through next.
func NewQueue(db *store.DB, c clock.Clock, box Sealer, next Mailer, log *slog.Logger) *Queue {
	return &Queue{db: db, clock: c, box: box, next: next, log: log, wake: make(chan struct{}, 1), Workers: 8}
}

const queueAAD = "mail_queue"

// QueueColumn is where a queued message waits, sealed for queueAAD, one
// associated data for every row (a message is not bound to its row): the
// encryption key's rotation reseals it as it does every sealed column
// (app.sealedPlaces).
var QueueColumn = atrest.Column{Table: "mail_queue", Key: "mail_id", Column: "sealed", SharedAAD: queueAAD}

// sealedEmail is what a queue row seals: the message, and until when it
// is worth delivering (Unix ms; 0 for a message without a lifetime,
// bounded by queueTries instead).
type sealedEmail struct {
	Email
	GiveUpAt int64 `json:"give_up_at,omitempty"`
}

// Send queues m for delivery.
func (q *Queue) Send(ctx context.Context, m Email) error { return q.SendIn(ctx, q.db, m) }

// SendIn queues m through tx, which may be the caller's transaction: the
// message is queued if and only if that transaction commits, and the
// delivery loop is woken once it has.
func (q *Queue) SendIn(ctx context.Context, tx store.Querier, m Email) error {
	sealed := sealedEmail{Email: m}
	if m.ValidFor > 0 {
		sealed.GiveUpAt = store.Millis(q.clock.Now().Add(min(m.ValidFor, queueLife)))
	}
	raw, err := json.Marshal(sealed)
	if err != nil {
		return fmt.Errorf("notify: queue: %w", err)
	}
	now := store.Millis(q.clock.Now())
	if _, err := tx.ExecContext(ctx, `INSERT INTO mail_queue (mail_id, sealed, next_attempt_at, created_at) VALUES ($1, $2, $3, $3)`,
		ids.New("mail", ids.Test), q.box.Seal(string(raw), queueAAD), now); err != nil {
		return fmt.Errorf("notify: queue: insert: %w", store.MapError(err))
	}
	store.AfterCommit(tx, q.poke)
	return nil
}

// poke wakes Run without blocking.
func (q *Queue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Run delivers queued mail until ctx ends: at once when this process
// queued something, otherwise every second.
func (q *Queue) Run(ctx context.Context) {
	tick := time.NewTicker(queuePoll)
	defer tick.Stop()
	// A round fails every second while the database is unreachable: one
	// line a minute says so without flooding the log.
	fails := lograte.Limiter{Every: time.Minute}
	for {
		for {
			n, err := q.Deliver(ctx)
			if err != nil && ctx.Err() == nil {
				if ok, missed := fails.Allow(q.clock.Now()); ok {
					q.log.Warn("mail queue: delivery round failed", "error", err, "failures_not_logged", missed)
				}
			}
			if n < queueClaim || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		case <-tick.C:
		}
	}
}

type queued struct {
	id       string
	sealed   string
	attempts int
	lease    int64 // locked_until as this claim set it
	giveUpAt int64 // sealedEmail.GiveUpAt, once opened
}

// Deliver claims due messages, sends them, and reports how many it
// claimed. A message that has had its queueTries is not claimed again
// (Sweeps removes it): a replica that died during its last attempt must
// not earn it one more.
func (q *Queue) Deliver(ctx context.Context) (int, error) {
	now := q.clock.Now()
	lease := store.Millis(now.Add(queueLease))
	rows, err := q.db.QueryContext(ctx, `UPDATE mail_queue SET locked_until = $1, attempts = attempts + 1
		WHERE mail_id IN (SELECT mail_id FROM mail_queue WHERE next_attempt_at <= $2 AND locked_until <= $2
			AND attempts < $3 ORDER BY next_attempt_at LIMIT `+fmt.Sprint(queueClaim)+`)
		AND locked_until <= $2
		RETURNING mail_id, sealed, attempts`, lease, store.Millis(now), queueTries)
	if err != nil {
		return 0, fmt.Errorf("notify: queue: claim: %w", err)
	}
	var batch []queued
	for rows.Next() {
		m := queued{lease: lease}
		if err := rows.Scan(&m.id, &m.sealed, &m.attempts); err != nil {
			rows.Close()
			return 0, fmt.Errorf("notify: queue: claim: %w", err)
		}
		batch = append(batch, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("notify: queue: claim: %w", err)
	}
	// The batch is split among the workers, and each hands its share to
	// the Mailer at once: over SMTP, one connection carries them all.
	results := make([]error, len(batch))
	var wg sync.WaitGroup
	// At least one: with none, no message would be handed over, and
	// every result left nil would settle as delivered.
	workers := min(max(q.Workers, 1), len(batch))
	for w := range workers {
		from, to := len(batch)*w/workers, len(batch)*(w+1)/workers
		wg.Go(func() { copy(results[from:to], q.sendAll(ctx, batch[from:to])) })
	}
	wg.Wait()
	return len(batch), q.settle(ctx, batch, results)
}

// settleTimeout bounds the bookkeeping of a round.
const settleTimeout = 5 * time.Second

// settle records each message's result: delivered and undeliverable ones
// leave the queue, those a shutdown cut off are handed back, the others
// wait for their next attempt. It runs even when ctx has ended (the
// server is stopping): a message the server accepted but that stayed
// queued would be sent again once its lease ran out, and one cut off would
// wait out the lease for nothing.
func (q *Queue) settle(ctx context.Context, batch []queued, results []error) error {
	stopping := ctx.Err() != nil
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	var gone []string
	var cut, untried []queued
	var errs []error
	for i, m := range batch {
		switch cause := results[i]; {
		case cause == nil:
			gone = append(gone, m.id)
		case errors.Is(cause, ErrUndeliverable):
			q.log.Error("mail queue: message undeliverable; dropped", "mail_id", m.id, "attempt", m.attempts, "error", cause)
			gone = append(gone, m.id)
		case errors.Is(cause, errExpired):
			q.log.Warn("mail queue: message expired before it could be delivered; dropped", "mail_id", m.id, "attempt", m.attempts)
			gone = append(gone, m.id)
		case stopping:
			cut = append(cut, m)
		case errors.Is(cause, ErrNotAttempted):
			// Behind a message that broke the connection: charged, they
			// would wait out its back-off with it, and share its fate
			// if it broke every connection until its tries ran out.
			untried = append(untried, m)
		default:
			errs = append(errs, q.failed(ctx, m, cause))
		}
	}
	if err := q.remove(ctx, gone); err != nil {
		errs = append(errs, err)
	}
	if len(cut) > 0 {
		q.log.Info("mail queue: delivery cut off by shutdown; messages handed back", "messages", len(cut))
	}
	if len(untried) > 0 {
		q.log.Info("mail queue: connection failed before these messages; handed back", "messages", len(untried))
	}
	for _, m := range append(cut, untried...) {
		errs = append(errs, q.release(ctx, m))
	}
	return errors.Join(errs...)
}

// errExpired is the result of a message whose link or code expired
// before it could be sent: there is nothing left to deliver.
var errExpired = errors.New("its link or code expired before it could be delivered")

// sendAll opens ms (noting each one's giveUpAt) and delivers them in one
// go (see BatchMailer), within one attempt's timeout, and returns each
// one's result. A message already past its lifetime is not sent.
func (q *Queue) sendAll(ctx context.Context, ms []queued) []error {
	results := make([]error, len(ms))
	emails := make([]Email, 0, len(ms))
	index := make([]int, 0, len(ms))
	now := store.Millis(q.clock.Now())
	for i := range ms {
		e, err := q.open(&ms[i])
		switch {
		case err != nil:
			results[i] = err
		case ms[i].giveUpAt != 0 && now >= ms[i].giveUpAt:
			results[i] = errExpired
		default:
			emails, index = append(emails, e), append(index, i)
		}
	}
	if len(emails) == 0 {
		return results
	}
	ctx, cancel := context.WithTimeout(ctx, queueTimeout)
	defer cancel()
	for j, err := range SendAll(ctx, q.next, emails) {
		results[index[j]] = err
	}
	return results
}

// open unseals a queued message and records its giveUpAt in m.
func (q *Queue) open(m *queued) (Email, error) {
	var e sealedEmail
	plain, err := q.box.Open(m.sealed, queueAAD)
	if err != nil {
		return e.Email, err
	}
	err = json.Unmarshal([]byte(plain), &e)
	m.giveUpAt = e.GiveUpAt
	return e.Email, err
}

// failed schedules the next attempt, or drops a message that has no
// attempt left: one with a lifetime (Email.ValidFor) when its link or
// code will have expired by then (or queueLife will have passed),
// however many tries it had (the back-off settles at
// retryAfter(queueTries-1), about twenty minutes); one without, after
// queueTries. A lifetime, not a count, is what bounds the first:
// six tries are over in under half an hour, and an outage that long would
// lose invitations good for a week and links good for an hour.
func (q *Queue) failed(ctx context.Context, m queued, cause error) error {
	next := q.clock.Now().Add(retryAfter(m.attempts))
	if (m.giveUpAt == 0 && m.attempts >= queueTries) || (m.giveUpAt != 0 && store.Millis(next) >= m.giveUpAt) {
		q.log.Error("mail queue: message dropped after repeated failures", "mail_id", m.id, "attempts", m.attempts, "error", cause)
		return q.remove(ctx, []string{m.id})
	}
	q.log.Warn("mail queue: delivery failed; will retry", "mail_id", m.id, "attempt", m.attempts, "error", cause)
	// A message with a lifetime keeps its count below queueTries-1, so
	// its next claim leaves it claimable (and not the sweeper's) should
	// the replica making that attempt die.
	attempts := m.attempts
	if m.giveUpAt != 0 {
		attempts = min(attempts, queueTries-2)
	}
	// Only while the claim is still this round's: once the lease has run
	// out another replica may hold the message.
	if _, err := q.db.ExecContext(ctx, `UPDATE mail_queue SET next_attempt_at = $1, locked_until = 0, last_error = $2, attempts = $3
		WHERE mail_id = $4 AND locked_until = $5`, store.Millis(next), truncate(cause.Error(), 500), attempts, m.id, m.lease); err != nil {
		return fmt.Errorf("notify: queue: reschedule: %w", err)
	}
	return nil
}

// release hands back a message whose attempt a shutdown cut off, or that
// a broken connection never carried (ErrNotAttempted): due at once, for
// the next round, process or replica, and without counting the attempt,
// which said nothing about the message. (If the server had in fact taken
// it before the cut, it is sent twice, as it would have been after the
// lease.)
func (q *Queue) release(ctx context.Context, m queued) error {
	if _, err := q.db.ExecContext(ctx, `UPDATE mail_queue SET locked_until = 0, attempts = attempts - 1
		WHERE mail_id = $1 AND locked_until = $2`, m.id, m.lease); err != nil {
		return fmt.Errorf("notify: queue: release: %w", err)
	}
	return nil
}

// remove deletes delivered messages in one statement.
func (q *Queue) remove(ctx context.Context, idsDone []string) error {
	if len(idsDone) == 0 {
		return nil
	}
	args := make([]any, len(idsDone))
	ph := make([]byte, 0, len(idsDone)*4)
	for i, id := range idsDone {
		args[i] = id
		if i > 0 {
			ph = append(ph, ',')
		}
		ph = fmt.Appendf(ph, "$%d", i+1)
	}
	if _, err := q.db.ExecContext(ctx, `DELETE FROM mail_queue WHERE mail_id IN (`+string(ph)+`)`, args...); err != nil {
		return fmt.Errorf("notify: queue: delete: %w", err)
	}
	return nil
}

// Sweeps offers the sweeper (app.Sweeper) the messages Deliver no longer
// claims: those that had their queueTries and whose last claim ran out
// unsettled (the replica making the attempt died).
func (q *Queue) Sweeps() []sweeper.Sweepable {
	return []sweeper.Sweepable{sweeper.Expired{DB: q.db, Table: "mail_queue", Key: "mail_id", Column: "next_attempt_at",
		Where: fmt.Sprintf("attempts >= %d AND locked_until < $1", queueTries)}}
}

// Pending counts queued messages (for tests and operators).
func (q *Queue) Pending(ctx context.Context) (int, error) {
	var n int
	err := q.db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_queue`).Scan(&n)
	return n, err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
