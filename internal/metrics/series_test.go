package metrics

import (
	"maps"
	"sync"
	"testing"
	"time"
)

// Requests remembered per route and status still land in the series the
// labels name, each route's latency in one histogram whatever the status,
// also when the first requests of a route arrive together.
func TestObserveRequestCountsEverySeries(t *testing.T) {
	for range 20 { // fresh series each round, first requests released together
		observeTogether(t)
	}
}

func observeTogether(t *testing.T) {
	m := New()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			<-start
			for range 100 {
				m.ObserveRequest("POST /a", 200, time.Millisecond)
				m.ObserveRequest("POST /a", 401, time.Millisecond)
				m.ObserveRequest("GET /b", 200, time.Millisecond)
			}
		})
	}
	close(start)
	wg.Wait()
	fs := scrapeParsed(t, m)
	counts, latencies := map[string]float64{}, map[string]float64{}
	for _, s := range fs["latchkey_http_requests_total"].samples {
		counts["route="+s.labels["route"]+" status="+s.labels["status"]] = s.value
	}
	for _, s := range fs["latchkey_http_request_duration_seconds"].samples {
		if s.name == "latchkey_http_request_duration_seconds_count" {
			latencies["route="+s.labels["route"]] = s.value
		}
	}
	wantCounts := map[string]float64{"route=POST /a status=200": 800, "route=POST /a status=401": 800, "route=GET /b status=200": 800}
	if !maps.Equal(counts, wantCounts) {
		t.Errorf("request counts %v, want %v", counts, wantCounts)
	}
	wantLatencies := map[string]float64{"route=POST /a": 1600, "route=GET /b": 800}
	if !maps.Equal(latencies, wantLatencies) {
		t.Errorf("latency sample counts %v, want %v", latencies, wantLatencies)
	}
	if got := len(m.requests.all()); got != 3 {
		t.Errorf("%d remembered series pairs, want 3", got)
	}
	if got := len(m.latency.all()); got != 2 {
		t.Errorf("%d latency histograms, want 2", got)
	}
}

// Logins, lockouts and deliveries counted at once from many goroutines,
// the first of each series among them, all land.
func TestCounterVecCountsUnderConcurrency(t *testing.T) {
	m := New()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			<-start
			for range 100 {
				m.Login("password", true)
				m.Login("password", false)
				m.Lockout("password")
				m.AuditWriteFailed()
			}
		})
	}
	close(start)
	wg.Wait()
	fs := scrapeParsed(t, m)
	got := map[string]float64{}
	for _, name := range []string{"latchkey_logins_total", "latchkey_lockouts_total", "latchkey_audit_write_failures_total"} {
		for _, s := range fs[name].samples {
			got[name+" "+s.labels["method"]+" "+s.labels["result"]] = s.value
		}
	}
	want := map[string]float64{"latchkey_logins_total password success": 800, "latchkey_logins_total password failure": 800,
		"latchkey_lockouts_total password ": 800, "latchkey_audit_write_failures_total  ": 800}
	if !maps.Equal(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
}

// Two callers adding the same key get the same value: the one that waited
// for the lock finds the other's instead of replacing it (whose counts
// would then be lost).
func TestCowMapAddsOnce(t *testing.T) {
	var c cowMap[string, counter]
	inFirst, release := make(chan struct{}), make(chan struct{})
	var first, second *counter
	var wg sync.WaitGroup
	wg.Go(func() {
		first = c.add("k", func() *counter { close(inFirst); <-release; return new(counter) })
	})
	<-inFirst
	wg.Go(func() { second = c.add("k", func() *counter { return new(counter) }) })
	time.Sleep(10 * time.Millisecond) // the second call waits for the lock (or comes after; the same either way)
	close(release)
	wg.Wait()
	if first != second || c.all()["k"] != first || len(c.all()) != 1 {
		t.Errorf("two adds of one key: %p and %p, map holds %p", first, second, c.all()["k"])
	}
}
