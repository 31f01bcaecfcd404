package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latchkey/latchkey/internal/config"
)

// mailpitServer runs Mailpit on loopback ports; stop ends it by its pid.
type mailpitServer struct {
	smtp, api string
	pid       int
	stop      func()
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer l.Close()
	return l.Addr().String()
}

func startMailpit(bin, dir string) (*mailpitServer, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("mailpit binary %s: %w (make deps builds it)", bin, err)
	}
	m := &mailpitServer{smtp: freeAddr(), api: freeAddr()}
	cmd := exec.Command(bin, "--smtp", m.smtp, "--listen", m.api, "--database", filepath.Join(dir, "mailpit.db"),
		"--disable-version-check", "--smtp-disable-rdns", "--quiet")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	m.pid = cmd.Process.Pid
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	m.stop = func() { _ = cmd.Process.Kill(); <-done }
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := m.count(); err == nil {
			return m, nil
		}
	}
	m.stop()
	return nil, fmt.Errorf("mailpit did not start")
}

// cpu is Mailpit's user+system CPU time so far: it receives every
// message on the same cores, and the report says what it takes.
func (m *mailpitServer) cpu() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", m.pid))
	if err != nil {
		return 0
	}
	// The fields after the command name (which may hold spaces) start at
	// the last ')'; utime and stime are fields 14 and 15 of the line.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat times (100 on Linux).
const clockTicks = 100

// count is how many messages Mailpit holds.
func (m *mailpitServer) count() (int, error) {
	res, err := http.Get("http://" + m.api + "/api/v1/messages?limit=1")
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var out struct {
		Total int `json:"total"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return 0, err
	}
	return out.Total, nil
}

// workerClient is one bench worker's HTTP client. The flows call the
// backend face, as a customer's server does, and each worker keeps one
// keep-alive connection for its whole run, like one connection of that
// server's pool. (Until the backend face was exempt from the limits per
// client address, the workers moved to a new loopback address every 40
// flows to stay under the send limit of 50 per 10 minutes.)
func workerClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
}

// emailFlows runs send-then-authenticate flows with workers clients for d
// and returns flows per second and the p99 of the send request.
func emailFlows(s *server, codes codeReader, org string, run int, workers int, d time.Duration) (float64, float64, error) {
	var done atomic.Int64
	var mu sync.Mutex
	var sends []time.Duration
	var firstErr error
	var seq atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	pid, secret := s.proj.Project.ID, s.proj.Secret
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := workerClient()
			defer c.CloseIdleConnections()
			for time.Now().Before(deadline) {
				n := seq.Add(1)
				email := fmt.Sprintf("flow-%d-%d@bench.test", run, n)
				wait := codes(email)
				start := time.Now()
				err := post(c, s.base+"/v1/b2b/otps/email/login_or_signup", pid, secret,
					map[string]any{"organization_id": org, "email_address": email})
				took := time.Since(start)
				var code string
				if err == nil {
					code, err = wait()
				}
				if err == nil {
					err = post(c, s.base+"/v1/b2b/otps/email/authenticate", pid, secret,
						map[string]any{"organization_id": org, "email_address": email, "code": code})
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				sends = append(sends, took)
				mu.Unlock()
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, 0, firstErr
	}
	slices.Sort(sends)
	p99 := float64(sends[(len(sends)-1)*99/100]) / float64(time.Millisecond)
	return float64(done.Load()) / d.Seconds(), p99, nil
}

// codeReader starts waiting for the code of a send to email (before the
// send) and returns the wait.
type codeReader func(email string) func() (string, error)

// mailEnd is where the outbox delivers: the bench's SMTP sink, or Mailpit.
type mailEnd interface {
	name() string
	codes(ctx context.Context, s *server) codeReader
	delivered() (int, error)
	// otherCPU is CPU time spent outside this process (Mailpit's).
	otherCPU() time.Duration
}

func (k *smtpSink) name() string { return "the SMTP sink" }

// codes reads each code from the delivered mail.
func (k *smtpSink) codes(context.Context, *server) codeReader {
	return func(email string) func() (string, error) {
		ch := k.expect(email)
		return func() (string, error) { return k.code(email, ch) }
	}
}

func (k *smtpSink) delivered() (int, error) { return int(k.received.Load()), nil }
func (k *smtpSink) otherCPU() time.Duration { return 0 }

func (m *mailpitServer) name() string { return "Mailpit" }

// codes reads each code from the dev mailbox, as soon as the send returns.
func (m *mailpitServer) codes(ctx context.Context, s *server) codeReader {
	return func(email string) func() (string, error) {
		return func() (string, error) {
			msgs, err := s.app.Outbox.List(ctx, email, 1)
			if err != nil || len(msgs) == 0 || len(msgs[0].Codes) == 0 {
				return "", fmt.Errorf("no code captured for %s: %v", email, err)
			}
			return msgs[0].Codes[0], nil
		}
	}
}

func (m *mailpitServer) delivered() (int, error) { return m.count() }
func (m *mailpitServer) otherCPU() time.Duration { return m.cpu() }

// emailFigures: email-code flows per second, in production mode with the
// codes read from the mail the outbox delivers to the SMTP sink (the
// target), then in dev mode with Mailpit on the same cores and the codes
// read from the dev mailbox (for reference: the figure earlier runs gave).
func emailFigures(ctx context.Context, o options, rep *report, dir string) error {
	sink, err := startSink()
	if err != nil {
		return err
	}
	s, err := startServer(ctx, filepath.Join(dir, "email.db"), func(c *config.Config) { c.SMTPURL = "smtp://" + sink.addr() })
	if err != nil {
		sink.close()
		return err
	}
	err = emailRuns(ctx, o, rep, s, sink, "SQLite", 32, emailTarget)
	s.close()
	sink.close()
	if err != nil || o.mailpit == "" {
		return err
	}
	mp, err := startMailpit(o.mailpit, dir)
	if err != nil {
		return err
	}
	defer mp.stop()
	s, err = startServer(ctx, filepath.Join(dir, "email-mailpit.db"), func(c *config.Config) {
		c.SMTPURL = "smtp://" + mp.smtp
		// Dev mode also captures each message in the dev mailbox, which is
		// where this client reads the codes back (one more write per send
		// than production).
		c.Dev = true
	})
	if err != nil {
		return err
	}
	defer s.close()
	return emailRuns(ctx, o, rep, s, mp, "SQLite, dev mode with Mailpit on the same cores (reference)", 16, "")
}

// emailTarget is the target for email-code flows.
const emailTarget = "≥ 500 flows/s, no request waits on SMTP"

// emailRuns measures email-code flows and reports them against goal:
// emailTarget, "flat" (growth, compared by the reader) or "" (reference).
func emailRuns(ctx context.Context, o options, rep *report, s *server, end mailEnd, label string, workers int, goal string) error {
	org, err := s.createOrg(fmt.Sprintf("bench-mail-%d", time.Now().UnixNano()%1e6))
	if err != nil {
		return err
	}
	var rates, p99s, cpus []float64
	start := time.Now()
	before, _ := end.delivered()
	otherCPU := end.otherCPU()
	sent := 0
	codes := end.codes(ctx, s)
	for run := range o.runs {
		cpu := cpuTime()
		r, p, err := emailFlows(s, codes, org, run, workers, o.duration)
		if err != nil {
			return err
		}
		cpuMs := float64(cpuTime()-cpu) / float64(time.Millisecond) / (r * o.duration.Seconds())
		rates, p99s, cpus = append(rates, r), append(p99s, p), append(cpus, cpuMs)
		sent += int(r * o.duration.Seconds())
	}
	// Mail delivery continues in the background; wait for the outbox to
	// empty.
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if n, err := s.app.MailQueue.Pending(ctx); err == nil && n == 0 {
			break
		}
	}
	delivered, _ := end.delivered()
	took := time.Since(start)
	rate := median(rates)
	result := fmt.Sprintf("%.0f flows/s, send p99 %s, %.2f ms CPU/flow (server and client)", rate, ms(median(p99s)), median(cpus))
	if goal == emailTarget {
		rep.add("email-code flows (send + authenticate, SMTP via outbox), "+label, result, goal, ptr(rate >= 500))
	} else {
		rep.add("email-code flows, "+label, result, goal, nil)
	}
	outbox := fmt.Sprintf("%d of ~%d messages delivered, %.0f/s overall", delivered-before, sent, float64(delivered-before)/took.Seconds())
	if k, ok := end.(*smtpSink); ok {
		outbox += fmt.Sprintf(" over %d connections", k.dials.Load())
	}
	if other := end.otherCPU() - otherCPU; other > 0 {
		outbox += fmt.Sprintf("; %s (same cores) %.2f ms CPU/message", end.name(), float64(other)/float64(time.Millisecond)/float64(max(delivered-before, 1)))
	}
	rep.add("  outbox into "+end.name(), outbox, "", nil)
	return nil
}
