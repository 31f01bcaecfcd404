package metrics

import (
	"bufio"
	"compress/gzip"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/notify"
)

func scrapeText(t *testing.T, m *Metrics, acceptEncoding string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	m.Handler().ServeHTTP(rec, req)
	res := rec.Result()
	body := io.Reader(res.Body)
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(raw)
}

func scrapeParsed(t *testing.T, m *Metrics) map[string]*parsedFamily {
	t.Helper()
	_, text := scrapeText(t, m, "")
	fs, err := parseExposition(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return fs
}

type okMailer struct{}

func (okMailer) Send(context.Context, notify.Email) error { return nil }

// Every family the client library served is there with its type and HELP
// text (dashboards and alerts query them by name), and none it did not.
func TestScrapeHasEveryBaselineFamily(t *testing.T) {
	m := New()
	m.ObserveRequest("GET /readyz", 200, time.Millisecond)
	m.Login("password", true)
	m.Lockout("password")
	_ = m.Mailer("smtp", okMailer{}).Send(context.Background(), notify.Email{})
	_ = m.SMSSender("sms_gateway", okSMS{}).SendSMS(context.Background(), notify.SMS{})
	got := scrapeParsed(t, m)

	f, err := os.Open("testdata/client_golang_families.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]*parsedFamily{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if rest, ok := strings.CutPrefix(sc.Text(), "# HELP "); ok {
			name, help, _ := strings.Cut(rest, " ")
			want[name] = &parsedFamily{help: help}
		} else if rest, ok := strings.CutPrefix(sc.Text(), "# TYPE "); ok {
			name, kind, _ := strings.Cut(rest, " ")
			want[name].kind = kind
		}
	}
	if len(want) != 46 {
		t.Fatalf("read %d baseline families, want 46", len(want))
	}
	for name, w := range want {
		g := got[name]
		switch {
		case g == nil && strings.HasPrefix(name, "process_") && runtime.GOOS != "linux":
		case g == nil:
			t.Errorf("%s missing", name)
		case g.kind != w.kind || g.help != w.help:
			t.Errorf("%s is %s %q, want %s %q", name, g.kind, g.help, w.kind, w.help)
		}
	}
	for name := range got {
		if want[name] == nil {
			t.Errorf("%s is not a family the client library served", name)
		}
	}
}

// testBinaryInit is a moment just after this process started.
var testBinaryInit = time.Now()

// The values mean what the client library's did.
func TestRuntimeAndProcessValues(t *testing.T) {
	runtime.GC()
	fs := scrapeParsed(t, New())
	value := func(name string) float64 {
		t.Helper()
		f := fs[name]
		if f == nil {
			t.Fatalf("%s missing", name)
		}
		return f.samples[0].value
	}
	if g := fs["go_info"].samples[0]; g.labels["version"] != runtime.Version() || g.value != 1 {
		t.Errorf("go_info %v", g)
	}
	if v := value("go_sched_gomaxprocs_threads"); v != float64(runtime.GOMAXPROCS(0)) {
		t.Errorf("go_sched_gomaxprocs_threads %v", v)
	}
	if v := value("go_gc_gomemlimit_bytes"); v != math.MaxInt64 {
		t.Errorf("go_gc_gomemlimit_bytes %v, want the default MaxInt64", v)
	}
	if value("go_goroutines") < 1 || value("go_threads") < 1 || value("go_memstats_sys_bytes") < 1<<20 {
		t.Error("goroutines, threads or sys bytes implausible")
	}
	gc := fs["go_gc_duration_seconds"].samples
	var quantiles []string
	for _, s := range gc[:len(gc)-2] {
		quantiles = append(quantiles, s.labels["quantile"])
	}
	if strings.Join(quantiles, " ") != "0 0.25 0.5 0.75 1" || gc[len(gc)-1].value < 1 || gc[len(gc)-2].value <= 0 {
		t.Errorf("go_gc_duration_seconds after a GC: %v", gc)
	}
	if last := value("go_memstats_last_gc_time_seconds"); math.Abs(last-float64(time.Now().Unix())) > 60 {
		t.Errorf("go_memstats_last_gc_time_seconds %v, not the GC just run", last)
	}
	if runtime.GOOS != "linux" {
		return
	}
	// /proc's start time is in ticks of 10 ms since boot.
	if start, init := value("process_start_time_seconds"), float64(testBinaryInit.UnixNano())/1e9; start > init+0.02 || start < init-60 {
		t.Errorf("process_start_time_seconds %v, the test binary initialised at %v", start, init)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || value("process_max_fds") != float64(lim.Cur) {
		t.Errorf("process_max_fds %v, getrlimit %d", value("process_max_fds"), lim.Cur)
	}
	if rss := value("process_resident_memory_bytes"); rss < 1<<20 || rss > value("process_virtual_memory_bytes") {
		t.Errorf("process_resident_memory_bytes %v", rss)
	}
	if value("process_open_fds") < 3 {
		t.Errorf("process_open_fds %v", value("process_open_fds"))
	}
	// /proc counts CPU time in ticks of 10 ms; getrusage in microseconds.
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	if cpu, used := value("process_cpu_seconds_total"), float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9; cpu > used+0.02 || cpu < used-0.1 {
		t.Errorf("process_cpu_seconds_total %v, getrusage says %v", cpu, used)
	}
}

func TestLabelValuesEscaped(t *testing.T) {
	m := New()
	odd := "a\\b\"c\nd"
	m.Login(odd, true)
	_, text := scrapeText(t, m, "")
	if want := `latchkey_logins_total{method="a\\b\"c\nd",result="success"} 1` + "\n"; !strings.Contains(text, want) {
		t.Fatalf("no %s in\n%s", want, text)
	}
	fs, err := parseExposition(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := fs["latchkey_logins_total"].samples[0].labels["method"]; got != odd {
		t.Errorf("method read back as %q", got)
	}
}

// Buckets are cumulative, their upper bound inclusive, labelled as the
// client library labelled them; the sum is exact.
func TestHistogramBuckets(t *testing.T) {
	m := New()
	for _, d := range []time.Duration{0, time.Millisecond, time.Millisecond + 1, 5 * time.Second, 5*time.Second + 1, time.Hour} {
		m.ObserveRequest("GET /a", 200, d)
	}
	got := []string{}
	for _, s := range scrapeParsed(t, m)["latchkey_http_request_duration_seconds"].samples {
		got = append(got, strings.TrimPrefix(s.name, "latchkey_http_request_duration_seconds")+" "+s.labels["le"]+" "+
			string(appendValue(nil, s.value)))
	}
	want := []string{"_bucket 0.001 2", "_bucket 0.0025 3", "_bucket 0.005 3", "_bucket 0.01 3", "_bucket 0.025 3",
		"_bucket 0.05 3", "_bucket 0.1 3", "_bucket 0.25 3", "_bucket 0.5 3", "_bucket 1 3", "_bucket 2.5 3",
		"_bucket 5 4", "_bucket +Inf 6", "_sum  3610.002000002", "_count  6"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("histogram\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Families sort by name, series by label values, labels by name: the
// order the client library wrote, so scrapes diff cleanly.
func TestExpositionOrder(t *testing.T) {
	m := New()
	m.ObserveRequest("POST /b", 200, 0)
	m.ObserveRequest("GET /a", 500, 0)
	m.ObserveRequest("GET /a", 200, 0)
	m.Login("totp", false)
	m.Login("email_otp", true)
	m.Login("email_otp", false)
	_, text := scrapeText(t, m, "")
	var got []string
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "latchkey_http_requests_total") || strings.HasPrefix(line, "latchkey_logins_total") {
			got = append(got, strings.TrimSpace(line))
		}
	}
	want := []string{
		`latchkey_http_requests_total{route="GET /a",status="200"} 1`,
		`latchkey_http_requests_total{route="GET /a",status="500"} 1`,
		`latchkey_http_requests_total{route="POST /b",status="200"} 1`,
		`latchkey_logins_total{method="email_otp",result="failure"} 1`,
		`latchkey_logins_total{method="email_otp",result="success"} 1`,
		`latchkey_logins_total{method="totp",result="failure"} 1`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestHandlerContentTypeAndGzip(t *testing.T) {
	m := New()
	m.ObserveRequest("GET /a", 200, time.Millisecond)
	for _, tc := range []struct {
		accept string
		gzip   bool
	}{{"", false}, {"gzip", true}, {"deflate, GZIP;q=0.5", true}, {"gzip;q=0", false}, {"br", false}} {
		res, text := scrapeText(t, m, tc.accept)
		if ct := res.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		if got := res.Header.Get("Content-Encoding") == "gzip"; got != tc.gzip {
			t.Errorf("Accept-Encoding %q: gzipped %v, want %v", tc.accept, got, tc.gzip)
		}
		if _, err := parseExposition(text); err != nil {
			t.Errorf("Accept-Encoding %q: %v", tc.accept, err)
		}
	}
}

// Counting a series seen before takes no lock and allocates nothing: it
// runs on every request, session checks included.
func TestCountingAllocatesNothing(t *testing.T) {
	m := New()
	mailer := m.Mailer("smtp", okMailer{})
	count := func() {
		m.ObserveRequest("POST /v1/b2b/sessions/authenticate", 200, 3*time.Millisecond)
		m.Login("password", true)
		m.Lockout("password")
		m.AuditWriteFailed()
		_ = mailer.Send(context.Background(), notify.Email{})
	}
	count()
	if n := testing.AllocsPerRun(100, count); n != 0 {
		t.Errorf("%v allocations per count of known series, want 0", n)
	}
}

func BenchmarkObserveRequest(b *testing.B) {
	m := New()
	m.ObserveRequest("POST /v1/b2b/sessions/authenticate", 200, time.Millisecond)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.ObserveRequest("POST /v1/b2b/sessions/authenticate", 200, time.Millisecond)
		}
	})
}

type okSMS struct{}

func (okSMS) SendSMS(context.Context, notify.SMS) error { return nil }
