package app

import (
	"context"
	"time"
)

// SweepPasswords deletes stale password lockout counts and expired reset
// tokens (the serve loop calls it beside the rate-limit sweep).
func (a *App) SweepPasswords(ctx context.Context) error { return a.passwords.Sweep(ctx, 24*time.Hour) }
