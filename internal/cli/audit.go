package cli

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/audit"
)

// auditCmd prints a project's security events, newest first, one JSON
// object per line.
func auditCmd(ctx context.Context, env Env) error {
	fs := newFlags("audit")
	id := fs.String("project", "", "project id (required)")
	typ := fs.String("type", "", "only this event type (login, lockout, factor_change, signing_key_rotated, ...)")
	since := fs.Duration("since", 0, "only events newer than this, e.g. 24h (default: all)")
	limit := fs.Int("limit", 100, "at most this many events (up to 1000)")
	if err := parseFlags(fs, env.Args[1:]); err != nil {
		return err
	}
	if err := required(fs.Name(), *id == "", "--project is"); err != nil {
		return err
	}
	if *typ != "" && !slices.Contains(audit.Types, *typ) {
		return usageErrorf(fs.Name(), "unknown event type %q (known: %s)", *typ, strings.Join(audit.Types, ", "))
	}
	projects, log, closeDB, err := openAudited(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	if _, err := requireProject(ctx, projects, *id); err != nil {
		return err
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
