package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/audit"
)

// auditCmd prints a project's security events, newest first, one JSON
// object per line.
func auditCmd(ctx context.Context, env Env) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	id := fs.String("project", "", "project id (required)")
	typ := fs.String("type", "", "only this event type (login, lockout, factor_change, signing_key_rotated, ...)")
	since := fs.Duration("since", 0, "only events newer than this, e.g. 24h (default: all)")
	limit := fs.Int("limit", 100, "at most this many events (up to 1000)")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return err
	}
	if *id == "" {
		return fmt.Errorf("--project is required")
	}
	projects, log, closeDB, err := openAudited(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	if _, err := projects.ByID(ctx, *id); err != nil {
		return fmt.Errorf("project %s: %w", *id, err)
	}
	f := audit.Filter{ProjectID: *id, Type: *typ, Limit: *limit}
	if *since > 0 {
		f.Since = time.Now().Add(-*since)
	}
	events, err := log.List(ctx, f)
	if err != nil {
		return err
	}
	return encodeLines(env, events)
}
