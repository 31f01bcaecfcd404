package gctune

import (
	"context"
	"fmt"
	"os"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercentRule(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		floor, live uint64
		busy        bool
		want        int
	}{
		{64 * mib, 8 * mib, true, 700},     // next collection at 64 MiB
		{64 * mib, 8 * mib, false, 100},    // idle: Go's default
		{64 * mib, 32 * mib, true, 100},    // twice the live heap reaches the floor anyway
		{64 * mib, 40 * mib, true, 100},    // a login storm's argon2 buffers: never above the default
		{64 * mib, 10 * mib, true, 540},    // 10 MiB live: 54 MiB of garbage between collections
		{64 * mib, 1024, true, maxPercent}, // a tiny live heap is still collected now and then
		{64 * mib, 0, true, 100},           // no reading: the default
	} {
		if got := nextPercent(c.floor, c.live, c.busy); got != c.want {
			t.Errorf("nextPercent(%d, %d, %v) = %d, want %d", c.floor, c.live, c.busy, got, c.want)
		}
	}
}

// The tuner raises GOGC while collections come close together, ignores
// small swings, and goes back to 100 once they are far apart.
func TestAfterGCFollowsTheLoad(t *testing.T) {
	const mib = 1 << 20
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	live := uint64(8 * mib)
	var sets []int
	tu := &tuner{floor: 64 * mib, busy: time.Second, now: func() time.Time { return now }, percent: 100,
		live: func() uint64 { return live }, setGC: func(p int) int { sets = append(sets, p); return 0 }}
	step := func(d time.Duration, l uint64) {
		now, live = now.Add(d), l
		if !tu.afterGC() {
			t.Fatal("the tuner stopped by itself")
		}
	}
	step(0, 8*mib)                         // the first collection: nothing to compare with
	step(50*time.Millisecond, 8*mib)       // busy: 700
	step(50*time.Millisecond, 8*mib+mib/4) // 676: within 10%, left alone
	step(50*time.Millisecond, 16*mib)      // 300
	step(5*time.Second, 16*mib)            // idle: back to 100
	want := []int{700, 300, 100}
	if fmt.Sprint(sets) != fmt.Sprint(want) {
		t.Fatalf("GOGC set to %v, want %v", sets, want)
	}
	step(50*time.Millisecond, 8*mib) // busy again: 700
	now = now.Add(idleAfter - time.Second)
	tu.idleCheck() // not yet idle
	now = now.Add(time.Second)
	tu.idleCheck() // idle: back to 100 without waiting for a collection
	tu.idleCheck() // and only once
	want = append(want, 700, 100)
	if fmt.Sprint(sets) != fmt.Sprint(want) {
		t.Fatalf("GOGC set to %v, want %v", sets, want)
	}
	tu.stopped = true
	if tu.afterGC() {
		t.Fatal("a stopped tuner re-armed")
	}
}

func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// With the real collector: garbage made quickly raises GOGC, and the end
// of the context puts it back.
func TestStartTunesTheCollector(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set in the environment: the tuner leaves it alone")
	}
	ctx, cancel := context.WithCancel(context.Background())
	Start(ctx, 256<<20)
	var sink []byte
	deadline := time.Now().Add(10 * time.Second)
	for gogc() == 100 {
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("GOGC never left 100 under a stream of garbage")
		}
		sink = make([]byte, 1<<20)
	}
	_ = sink
	cancel()
	for gogc() != 100 || active() {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC stayed at %d after the context ended", gogc())
		}
		time.Sleep(time.Millisecond)
	}
}
