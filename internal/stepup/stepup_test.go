package stepup

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
)

func TestRequire(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	if err := Require(now, now.Add(-time.Hour), now.Add(-Window)); err != nil {
		t.Fatalf("a factor exactly Window old: %v", err)
	}
	if err := Require(now, now.Add(-Window-time.Second)); !apierr.Is(err, apierr.SessionTooOld) {
		t.Fatalf("an old factor: %v", err)
	}
	if err := Require(now); !apierr.Is(err, apierr.SessionTooOld) {
		t.Fatalf("no factor: %v", err)
	}
}
