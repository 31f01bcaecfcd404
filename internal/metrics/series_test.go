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
	m := New()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				m.ObserveRequest("POST /a", 200, time.Millisecond)
				m.ObserveRequest("POST /a", 401, time.Millisecond)
				m.ObserveRequest("GET /b", 200, time.Millisecond)
			}
		}()
	}
	wg.Wait()
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts, latencies := map[string]float64{}, map[string]uint64{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			labels := ""
			for _, l := range s.GetLabel() {
				labels += l.GetName() + "=" + l.GetValue() + " "
			}
			switch f.GetName() {
			case "latchkey_http_requests_total":
				counts[labels] = s.GetCounter().GetValue()
			case "latchkey_http_request_duration_seconds":
				latencies[labels] = s.GetHistogram().GetSampleCount()
			}
		}
	}
	wantCounts := map[string]float64{"route=POST /a status=200 ": 800, "route=POST /a status=401 ": 800, "route=GET /b status=200 ": 800}
	if !maps.Equal(counts, wantCounts) {
		t.Errorf("request counts %v, want %v", counts, wantCounts)
	}
	wantLatencies := map[string]uint64{"route=POST /a ": 1600, "route=GET /b ": 800}
	if !maps.Equal(latencies, wantLatencies) {
		t.Errorf("latency sample counts %v, want %v", latencies, wantLatencies)
	}
	if got := len(*m.series.Load()); got != 3 {
		t.Errorf("%d remembered series pairs, want 3", got)
	}
}
