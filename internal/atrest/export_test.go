package atrest

import (
	"context"

	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// SealColumn is SealExisting for one column, reporting also how many rows
// it read: a test proves that a start with nothing to seal reads none.
func SealColumn(ctx context.Context, db *store.DB, box *secretbox.Box, c Column) (sealed, read int, err error) {
	if err := c.check(); err != nil {
		return 0, 0, err
	}
	return sealColumn(ctx, db, box, c)
}
