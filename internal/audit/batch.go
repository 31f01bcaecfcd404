package audit

import (
	"context"
	"fmt"
	"sync"

	"github.com/latchkey/latchkey/internal/store"
)

// Group commit. Every login writes an audit event after its answer is
// ready; written one by one, each event was a write transaction of its
// own on SQLite's single writer. Record instead queues the event and waits
// until it is committed, and concurrent events share one transaction: the
// first caller writes the events queued so far (its own among them), and
// hands the events queued meanwhile to the first of their callers, who
// writes them the same way. An event is as durable when Record returns as
// before, and a login storm costs one short transaction per batch.

// maxBatch bounds the events of one transaction.
const maxBatch = 256

type queued struct {
	e    Event
	done chan error    // the batch's result
	lead chan struct{} // this caller writes the next batch
}

type batcher struct {
	mu    sync.Mutex
	queue []*queued
	busy  bool // a batch is being written
}

// Record stores e, stamping its id and time; see the group commit above.
func (l *Log) Record(ctx context.Context, e Event) error {
	if err := e.check(); err != nil {
		return err
	}
	p := &queued{e: e, done: make(chan error, 1), lead: make(chan struct{}, 1)}
	b := &l.batch
	b.mu.Lock()
	b.queue = append(b.queue, p)
	leads := !b.busy
	b.busy = true
	b.mu.Unlock()
	if leads {
		l.writeBatch(ctx)
	}
	select {
	case err := <-p.done:
		return err
	case <-p.lead:
		l.writeBatch(ctx)
		return <-p.done
	}
}

// writeBatch writes the queued events in one transaction, tells their
// callers, and passes the lead to the first event queued meanwhile.
func (l *Log) writeBatch(ctx context.Context) {
	b := &l.batch
	b.mu.Lock()
	n := min(len(b.queue), maxBatch)
	batch := b.queue[:n:n]
	b.queue = b.queue[n:]
	b.mu.Unlock()

	// The events belong to several requests: none of their cancellations
	// may abandon the others'.
	ctx = context.WithoutCancel(ctx)
	err := l.db.Tx(ctx, func(q store.Querier) error {
		for _, p := range batch {
			if err := l.RecordIn(ctx, q, p.e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && len(batch) > 1 {
		// One event's failure must not be every event's: write each alone.
		for _, p := range batch {
			p.done <- l.RecordIn(ctx, l.db, p.e)
		}
	} else {
		for _, p := range batch {
			p.done <- err
		}
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) == 0 {
		b.busy = false
		return
	}
	b.queue[0].lead <- struct{}{}
}

// check refuses an event that cannot be filed.
func (e Event) check() error {
	if e.ProjectID == "" || e.Type == "" {
		return fmt.Errorf("audit: event needs a project and a type: %+v", e)
	}
	return nil
}
