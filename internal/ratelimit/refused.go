package ratelimit

import (
	"context"
	"errors"

	"github.com/latchkey/latchkey/internal/apierr"
)

// CountRefused counts a request that was refused (a bad address, an
// unknown organization, a JIT refusal, another key's limit) against rule
// and key after the transaction that counted it with AllowIn rolled back:
// a refused send is an attempt all the same. It returns the limit's own
// refusal when key is already over, and cause otherwise. Server errors
// (anything not in the error catalogue) count nothing.
func (l *Limiter) CountRefused(ctx context.Context, rule Rule, key string, cause error) error {
	var ae *apierr.Error
	if !errors.As(cause, &ae) {
		return cause
	}
	if err := l.Allow(ctx, rule, key); err != nil {
		return err
	}
	return cause
}
