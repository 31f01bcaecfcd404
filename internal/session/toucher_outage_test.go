package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// RunToucher, with touches pending and a database that fails every flush
// (here closed), reports the first failure, then at most one a minute: it
// used to report (and the server to log) one a second for as long as the
// outage lasted.
func TestToucherOutageReportsOnceAMinute(t *testing.T) {
	t.Parallel()
	db := apptest.SQLite(t)
	e := apptest.New(t, db, nil)
	e.PendingTouch(e.CreateOrg("acme", "ALL_ALLOWED", nil), "ada@acme.test")
	db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond) // two flushes
	defer cancel()
	reports := 0
	e.App.Sessions.RunToucher(ctx, func(error) { reports++ })
	if reports != 1 {
		t.Errorf("two failed flushes were reported %d times, want 1", reports)
	}
}

// The once-a-minute limit is a minute of the service's clock (the app's,
// a fake here), as every other time the service judges: it read
// time.Now, so a failure a minute later by that clock went unreported.
// The first report moves the clock a minute; the next flush's failure is
// reported too.
func TestToucherOutageLimitUsesTheServicesClock(t *testing.T) {
	t.Parallel()
	db := apptest.SQLite(t)
	e := apptest.New(t, db, nil)
	e.PendingTouch(e.CreateOrg("acme", "ALL_ALLOWED", nil), "ada@acme.test")
	db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond) // two flushes
	defer cancel()
	reports := 0
	e.App.Sessions.RunToucher(ctx, func(error) {
		reports++
		e.Clock.Advance(time.Minute)
	})
	if reports != 2 {
		t.Errorf("two failed flushes a minute apart were reported %d times, want 2", reports)
	}
}
