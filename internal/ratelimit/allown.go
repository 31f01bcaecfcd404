package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// AllowN records n hits at once (a batch of telemetry events counts each
// event) and refuses the whole batch, recording nothing, when it would take
// the window past the limit. The check and the increment are one
// conditional upsert, so concurrent batches never overshoot.
func (l *Limiter) AllowN(ctx context.Context, rule Rule, key string, n int) error {
	if n <= 0 || !applies(ctx, rule) {
		return nil
	}
	now := l.clock.Now()
	start := now.Truncate(rule.Window)
	var hits int
	err := l.db.QueryRowContext(ctx, `
		INSERT INTO rate_limits (bucket, window_start, hits)
		SELECT CAST($1 AS TEXT), CAST($2 AS BIGINT), CAST($3 AS BIGINT) WHERE CAST($3 AS BIGINT) <= CAST($4 AS BIGINT)
		ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + excluded.hits
		WHERE rate_limits.hits + excluded.hits <= CAST($4 AS BIGINT)
		RETURNING hits`, bucketFor(rule, key), store.Millis(start), n, rule.Limit).Scan(&hits)
	if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
		retry := int(math.Ceil(start.Add(rule.Window).Sub(now).Seconds()))
		return apierr.New(apierr.TooManyRequests).WithDetails(map[string]any{"retry_after_seconds": retry, "limit": rule.Limit})
	}
	if err != nil {
		return fmt.Errorf("ratelimit: %s: %w", rule.Name, err)
	}
	return nil
}
