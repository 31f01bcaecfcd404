package lograte

import (
	"testing"
	"time"
)

func TestAllowOncePerEvery(t *testing.T) {
	l := &Limiter{Every: time.Minute}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	steps := []struct {
		at         time.Duration
		ok         bool
		wantMissed int
	}{
		{0, true, 0},
		{time.Second, false, 0},
		{30 * time.Second, false, 0},
		{59 * time.Second, false, 0},
		{time.Minute, true, 3},
		{time.Minute + time.Second, false, 0},
		{3 * time.Minute, true, 1},
	}
	for _, s := range steps {
		ok, missed := l.Allow(t0.Add(s.at))
		if ok != s.ok || missed != s.wantMissed {
			t.Errorf("at +%s: Allow = %v, %d; want %v, %d", s.at, ok, missed, s.ok, s.wantMissed)
		}
	}
}
