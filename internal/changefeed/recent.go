package changefeed

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// LastChange reports how long ago, by the database's clock, the newest
// change row was written (ok false when the table holds none). Every
// write of a watched table by a server records one, so a recent row is a
// cheap sign that a server is still serving (`latchkey rekey` warns of
// it); an idle server writes none, so an old or missing row proves
// nothing.
func LastChange(ctx context.Context, db *store.DB) (age time.Duration, ok bool, err error) {
	var last sql.NullInt64
	var now int64
	if err := db.QueryRowContext(ctx, `SELECT MAX(at), `+nowMillis(db.Dialect())+` FROM changes`).Scan(&last, &now); err != nil {
		return 0, false, fmt.Errorf("changefeed: last change: %w", err)
	}
	if !last.Valid {
		return 0, false, nil
	}
	return time.Duration(now-last.Int64) * time.Millisecond, true, nil
}
