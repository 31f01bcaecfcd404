package changefeed_test

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store/storetest"
	"github.com/latchkey/latchkey/internal/syncbuf"
)

// The feed's polls and the guard's checks fail every round while the
// database is unreachable (here closed) and log one line a minute: a
// minute of the feed's wall clock (Feed.now, a fake here), as every other
// timing of the package. The limit read time.Now, so a test that moved
// the clock saw no second line, and the limit followed another clock
// than the rest of the feed.
func TestOutageLogLimitUsesTheFeedsClock(t *testing.T) {
	t.Parallel()
	t.Run("feed", func(t *testing.T) {
		t.Parallel()
		db := storetest.SQLite(t)
		logs := &syncbuf.Buffer{}
		f := changefeed.New(db, slog.New(slog.NewTextHandler(logs, nil)))
		fake := clock.NewFake(time.Now())
		changefeed.SetClock(f, fake.Now)
		db.Close()
		wantOneLineAMinute(t, logs, fake, "change feed poll failed", 4*changefeed.Interval, f.Run)
	})
	t.Run("guard", func(t *testing.T) {
		t.Parallel()
		db := storetest.SQLite(t)
		logs := &syncbuf.Buffer{}
		g, err := changefeed.NewGuard(db, 1, []changefeed.Watch{
			{Table: "widgets", KeyColumn: "id", Scope: changefeed.Member, Columns: []string{"id", "owner"}},
		}, slog.New(slog.NewTextHandler(logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		fake := clock.NewFake(time.Now())
		changefeed.SetGuardClock(g, fake.Now, 10*time.Millisecond)
		db.Close()
		wantOneLineAMinute(t, logs, fake, "checking the installed triggers failed", 100*time.Millisecond, g.Run)
	})
}

// wantOneLineAMinute runs run until the test ends and checks that it logs
// line once, not again over rounds (a few fit in rounds) while fake
// stands still, and again, counting the rounds left out, once fake has
// moved a minute.
func wantOneLineAMinute(t *testing.T, logs *syncbuf.Buffer, fake *clock.Fake, line string, rounds time.Duration,
	run func(context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	lines := func() int { return strings.Count(logs.String(), line) }
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); lines() < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d lines logged, want %d:\n%s", lines(), n, logs.String())
			}
		}
	}
	waitFor(1)
	time.Sleep(rounds)
	if n := lines(); n != 1 {
		t.Fatalf("rounds within the minute logged %d lines, want 1:\n%s", n, logs.String())
	}
	fake.Advance(time.Minute)
	waitFor(2)
	if !regexp.MustCompile(`failures_not_logged=[1-9]`).MatchString(logs.String()) {
		t.Fatalf("the second line does not count the rounds left out:\n%s", logs.String())
	}
}
