package notify

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// queueColumn is where a queued message is kept, sealed for queueAAD (one
// associated data for every row: a message is not bound to its row).
var queueColumn = atrest.Column{Table: "mail_queue", Key: "mail_id", Column: "sealed"}

// RekeyQueue reseals under to, through the key rotation's transaction q,
// every message waiting in the queue, and returns how many it wrote.
func RekeyQueue(ctx context.Context, q store.Querier, from, to *secretbox.Box) (int, error) {
	rows, err := queueColumn.Rows(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("notify: rekey queue: %w", err)
	}
	for _, r := range rows {
		id, stored := r[0], r[1]
		next, err := atrest.Reseal(from, to, queueColumn.Table+"."+queueColumn.Column, id, stored, queueAAD)
		if err != nil {
			return 0, err
		}
		if err := atrest.Swap(ctx, q, queueColumn, id, stored, next); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}
