package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startOnce runs the real binary's `serve` on db and returns the time from
// exec to the first 200 of /readyz, and the resident memory after idle.
func startOnce(bin, db string, idle time.Duration) (time.Duration, float64, error) {
	addr := freeAddr()
	cmd := exec.Command(bin, "serve", "--addr", addr)
	cmd.Env = append(os.Environ(), "LATCHKEY_DATABASE_URL="+db, "LATCHKEY_BASE_URL=http://"+addr,
		"LATCHKEY_ENCRYPTION_KEY="+benchKey, "LATCHKEY_BREACH_API_URL=off")
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	var ready time.Duration
	for {
		res, err := c.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				ready = time.Since(start)
				break
			}
		}
		select {
		case err := <-exited:
			return 0, 0, fmt.Errorf("server exited before ready: %v", err)
		default:
		}
		if time.Since(start) > 30*time.Second {
			stop()
			return 0, 0, fmt.Errorf("not ready after 30 s")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(idle)
	rss, err := rssMiB(cmd.Process.Pid)
	stop()
	return ready, rss, err
}

// rssMiB reads VmRSS of pid.
func rssMiB(pid int) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				return 0, err
			}
			return float64(kb) / 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// startFigures: cold start of `serve` to a ready /readyz on an existing
// database (a restart) and on a new one (migrations included), and idle
// RSS.
func startFigures(ctx context.Context, o options, rep *report, tmp string) error {
	bin, err := filepath.Abs(o.binary)
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s: %w (make build)", bin, err)
	}
	var restart, first, rss []float64
	for i := range o.runs {
		db := filepath.Join(tmp, fmt.Sprintf("start-%d.db", i))
		d, _, err := startOnce(bin, db, 0)
		if err != nil {
			return err
		}
		first = append(first, float64(d)/float64(time.Millisecond))
		d, r, err := startOnce(bin, db, 2*time.Second)
		if err != nil {
			return err
		}
		restart, rss = append(restart, float64(d)/float64(time.Millisecond)), append(rss, r)
	}
	st, fi, rs := median(restart), median(first), median(rss)
	rep.add("cold start of serve to ready /readyz (existing database)", ms(st), "< 100 ms", ptr(st < 100))
	rep.add("  first start (creates and migrates the database)", ms(fi), "", nil)
	rep.add("idle RSS after start (2 s idle)", fmt.Sprintf("%.1f MiB", rs), "< 25 MiB", ptr(rs < 25))
	return nil
}
