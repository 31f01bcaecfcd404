package proof

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/syncbuf"
)

// testKey is the proofs' LATCHKEY_ENCRYPTION_KEY.
const testKey = "dGVzdC1rZXktMzItYnl0ZXMtbG9uZy1mb3ItbGF0Y2g="

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds the real latchkey command once per test run. The widget
// build is not needed: the proofs drive the API only.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "latchkey-proof-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "latchkey")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/latchkey")
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// server is one `latchkey serve` process.
type server struct {
	t    *testing.T
	cmd  *exec.Cmd
	URL  string
	out  *syncbuf.Buffer
	done chan struct{}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// baseEnv is the configuration every process of a proof shares.
func baseEnv(dsn string, extra ...string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LATCHKEY_") || strings.HasPrefix(kv, "LATCHKEY_TEST_") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"LATCHKEY_DATABASE_URL=" + dsn, "LATCHKEY_ENCRYPTION_KEY=" + testKey,
		"LATCHKEY_ARGON2_MEMORY_KIB=64", "LATCHKEY_ARGON2_ITERATIONS=1", "LATCHKEY_BREACH_API_URL=off"}, extra...)...)
}

// start runs `latchkey serve` on a free port and waits until /readyz answers.
func start(t *testing.T, env []string) *server {
	t.Helper()
	addr := freeAddr(t)
	s := &server{t: t, URL: "http://" + addr, out: &syncbuf.Buffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(binary(t), "serve", "--addr", addr)
	s.cmd.Env = append(append([]string{}, env...), "LATCHKEY_BASE_URL="+s.URL)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.kill)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			t.Fatalf("latchkey serve exited during start:\n%s", s.out)
		default:
		}
		if res, err := http.Get(s.URL + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("latchkey serve not ready within a minute:\n%s", s.out)
	return nil
}

// kill ends the process with SIGKILL: no shutdown hook runs.
func (s *server) kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-s.done
}

// cli runs a latchkey command with env and returns its standard output.
func cli(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("latchkey %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

// newProject migrates the database and creates a project through the CLI.
type projectCreds struct {
	ID     string `json:"project_id"`
	Secret string `json:"secret"`
	Public string `json:"public_token"`
}

func newProject(t *testing.T, env []string) projectCreds {
	t.Helper()
	var p projectCreds
	cli(t, env, "migrate") // only serve, dev and migrate create a database
	out := cli(t, env, "project", "create", "--name", "Proof", "--redirect-url", "http://app.proof.test/auth",
		"--origin", "http://app.proof.test")
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.Secret == "" {
		t.Fatalf("project create: %q %v", out, err)
	}
	return p
}

// call sends a backend request; it returns the status, the decoded body,
// and an error only when no answer came back (connection refused or cut).
func (p projectCreds) call(ctx context.Context, client *http.Client, base, method, path string, body any) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(p.ID, p.Secret)
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, err // cut mid-answer: not acknowledged
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return res.StatusCode, nil, fmt.Errorf("undecodable answer %q: %w", raw, err)
	}
	return res.StatusCode, out, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
