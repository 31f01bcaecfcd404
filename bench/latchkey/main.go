// Command latchkey is `make bench`: it measures every figure of the
// performance targets (README "Performance") on this machine and prints
// them as one plain table with their targets, each the median of -runs
// runs. Load comes from wrk (a separate process, as a customer's traffic
// would), except for flows that need a code read back between two calls,
// which a Go client drives.
//
// The server under test is the real handler (app.New + net/http) in this
// process for throughput figures, and the real binary (-binary) for cold
// start and idle memory.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/gctune"
)

type options struct {
	runs        int
	duration    time.Duration
	connections int
	postgres    string
	mailpit     string
	binary      string
	widget      string
	growth      []int
	orgGrowth   []int
	only        string
	cpuprofile  string
	memprofile  string
}

func main() {
	var o options
	var growth, orgGrowth string
	flag.IntVar(&o.runs, "runs", 3, "runs per figure; the median is reported")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "load time per run")
	flag.IntVar(&o.connections, "connections", 50, "wrk connections")
	flag.IntVar(&wrkThreads, "wrk-threads", 1, "wrk threads")
	flag.StringVar(&o.postgres, "postgres", os.Getenv("LATCHKEY_BENCH_POSTGRES_DSN"), "admin DSN of a PostgreSQL server (a fresh database is created); empty skips the PostgreSQL figure")
	flag.StringVar(&o.mailpit, "mailpit", "bin/mailpit", "Mailpit binary for the reference email figure (dev mode, Mailpit on the same cores); empty skips it")
	flag.StringVar(&o.binary, "binary", "bin/latchkey", "server binary for cold start and idle RSS")
	flag.StringVar(&o.widget, "widget", "web/widget/dist", "built widget")
	flag.StringVar(&growth, "growth", "1000,100000,1000000", "session counts for the cost-growth figure")
	flag.StringVar(&orgGrowth, "org-growth", "10,10000", "organization counts for the cost-growth figure")
	flag.StringVar(&o.only, "only", "", "comma-separated sections to run (sessions,postgres,password,overhead,email,start,widget,growth); empty runs all")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run (the server runs in this process) to this file")
	flag.StringVar(&o.memprofile, "memprofile", "", "write an allocation profile of the whole run to this file (pprof -sample_index=alloc_space)")
	flag.Parse()
	o.growth, o.orgGrowth = ints(growth), ints(orgGrowth)
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &n); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

func (o options) want(section string) bool {
	return o.only == "" || slices.Contains(strings.Split(o.only, ","), section)
}

func run(o options) error {
	if _, err := lookWrk(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The servers run in this process, tuned as serve tunes its own (the
	// bare yardstick shares the process, so it gets the same GC).
	floor := config.Defaults().GCFloorMiB
	gctune.Start(ctx, uint64(floor)<<20)
	rep := &report{}
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("Latchkey benchmark: %s, %d CPUs (GOMAXPROCS %d), %s, load before: %s", host, runtime.NumCPU(),
		runtime.GOMAXPROCS(0), time.Now().UTC().Format(time.RFC3339), load)
	fmt.Printf("median of %d runs; wrk %d thread(s), %d connections, %s per run after a 1 s warm-up; GC heap floor %d MiB while busy (as serve; GOGC=%q)\n\n",
		o.runs, wrkThreads, o.connections, o.duration, floor, os.Getenv("GOGC"))
	tmp, err := os.MkdirTemp("", "latchkey-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.cpuprofile != "" {
		// The handler runs in this process, so one profile covers the server
		// side of every figure selected with -only.
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if o.memprofile != "" {
		// Allocations drive GC work, and GC work the p99 tail.
		defer func() {
			if f, err := os.Create(o.memprofile); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}

	if o.want("sessions") {
		if err := sessionFigures(ctx, o, rep, "SQLite", filepath.Join(tmp, "sessions.db"), true); err != nil {
			return fmt.Errorf("sessions (sqlite): %w", err)
		}
	}
	if o.want("postgres") {
		if o.postgres == "" {
			rep.skip("session check by token, PostgreSQL", "no -postgres DSN")
		} else {
			dsn, drop, err := freshPostgres(ctx, o.postgres)
			if err != nil {
				return err
			}
			err = sessionFigures(ctx, o, rep, "PostgreSQL", dsn, false)
			drop()
			if err != nil {
				return fmt.Errorf("sessions (postgres): %w", err)
			}
		}
	}
	if o.want("password") {
		if err := passwordFigures(ctx, o, rep, filepath.Join(tmp, "password.db")); err != nil {
			return fmt.Errorf("password: %w", err)
		}
	}
	if o.want("overhead") {
		if err := overheadFigures(ctx, o, rep, filepath.Join(tmp, "overhead.db")); err != nil {
			return fmt.Errorf("password overhead: %w", err)
		}
	}
	if o.want("email") {
		if err := emailFigures(ctx, o, rep, tmp); err != nil {
			return fmt.Errorf("email: %w", err)
		}
	}
	if o.want("start") {
		if err := startFigures(ctx, o, rep, tmp); err != nil {
			return fmt.Errorf("cold start: %w", err)
		}
	}
	if o.want("widget") {
		if err := widgetFigures(o, rep); err != nil {
			return fmt.Errorf("widget: %w", err)
		}
	}
	if o.want("growth") {
		if err := growthFigures(ctx, o, rep, tmp); err != nil {
			return fmt.Errorf("growth: %w", err)
		}
	}
	rep.print(os.Stdout)
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("\nload after: %s", load)
	return nil
}
