package main

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// The ratio of logins to hashes is only fair if both count every op they
// start, including those still running when the time is up.
func TestSliceCountsWhatIsInFlightAtTheEnd(t *testing.T) {
	var started atomic.Int64
	d := 30 * time.Millisecond
	n, elapsed, _, err := slice(3, d, func() error {
		started.Add(1)
		time.Sleep(7 * time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != started.Load() {
		t.Errorf("counted %d of the %d ops started", n, started.Load())
	}
	if elapsed < d {
		t.Errorf("elapsed %v, want at least %v (the last op finishes after the deadline)", elapsed, d)
	}
}

func TestSliceReportsAFailure(t *testing.T) {
	boom := errors.New("boom")
	if _, _, _, err := slice(2, time.Millisecond, func() error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}
