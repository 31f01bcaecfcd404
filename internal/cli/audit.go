package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/audit"
)

// auditCmd prints a project's security events, newest first, one JSON
// object per line. A listing stops at --limit events (at most
// audit.MaxLimit); when a page is full, stderr names the command that
// prints the next one (--before the page's last event), so no event of the
// window is out of reach and a cut listing never passes for a whole one.
func auditCmd(ctx context.Context, env Env) error {
	fs := newFlags("audit")
	id := fs.String("project", "", "project id (required)")
	typ := fs.String("type", "", "only this event type (login, lockout, factor_change, signing_key_rotated, ...)")
	since := fs.String("since", "", "only events from this on: a duration ago (e.g. 24h) or an RFC 3339 time (default: all)")
	until := fs.String("until", "", "only events before this: a duration ago (e.g. 24h) or an RFC 3339 time (default: now)")
	before := fs.String("before", "", "only events listed after this event id (the cursor a full page prints on stderr)")
	limit := fs.Int("limit", audit.DefaultLimit, fmt.Sprintf("at most this many events, 1 to %d", audit.MaxLimit))
	if err := parseFlags(fs, env.Args[1:]); err != nil {
		return err
	}
	if err := required(fs.Name(), *id == "", "--project is"); err != nil {
		return err
	}
	if *typ != "" && !slices.Contains(audit.Types, *typ) {
		return usageErrorf(fs.Name(), "unknown event type %q (known: %s)", *typ, strings.Join(audit.Types, ", "))
	}
	if *limit < 1 || *limit > audit.MaxLimit {
		return usageErrorf(fs.Name(), "--limit must be 1 to %d (for more, page with --before: a full page names the next one)",
			audit.MaxLimit)
	}
	now := time.Now()
	f := audit.Filter{ProjectID: *id, Type: *typ, Limit: *limit, Before: *before}
	for _, b := range []struct {
		name, value string
		dst         *time.Time
	}{{"since", *since, &f.Since}, {"until", *until, &f.Until}} {
		if b.value == "" {
			continue
		}
		t, err := parseWhen(b.name, b.value, now)
		if err != nil {
			return usageErrorf(fs.Name(), "%v", err)
		}
		*b.dst = t
	}
	projects, log, closeDB, err := openAudited(ctx, env)
	if err != nil {
		return err
	}
	defer closeDB()
	if _, err := requireProject(ctx, projects, *id); err != nil {
		return err
	}
	events, err := log.List(ctx, f)
	if errors.Is(err, audit.ErrCursorNotFound) {
		return fmt.Errorf("--before %s names no event of project %s", *before, *id)
	}
	if err != nil {
		return err
	}
	if err := encodeLines(env, events); err != nil {
		return err
	}
	if len(events) == *limit {
		fmt.Fprintf(env.Stderr, "latchkey audit: %d events shown, the --limit; the next page: %s\n", len(events),
			nextPage(fs, f, events[len(events)-1].ID))
	}
	return nil
}

// parseWhen reads --since or --until: a duration before now (never
// negative: "-1h" meant nothing and read as "all"), or an RFC 3339 time.
func parseWhen(flag, s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("--%s %s: a duration counts back from now and must not be negative (e.g. 24h)", flag, s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %q is neither a duration (24h) nor an RFC 3339 time (2026-03-01T09:00:00Z)", flag, s)
	}
	return t, nil
}

// nextPage is the command line that prints the page after this one: the
// same flags, with --before the last event shown, and --since and --until
// as the times this run read them as, so that the next page covers the
// same window however much later it runs.
func nextPage(fs *flag.FlagSet, f audit.Filter, last string) string {
	parts := []string{"latchkey audit"}
	fs.Visit(func(fl *flag.Flag) {
		v := fl.Value.String()
		switch fl.Name {
		case "before":
			return
		case "since":
			v = f.Since.UTC().Format(time.RFC3339Nano)
		case "until":
			v = f.Until.UTC().Format(time.RFC3339Nano)
		}
		parts = append(parts, "--"+fl.Name, shellQuote(v))
	})
	parts = append(parts, "--before", shellQuote(last))
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/+=,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
