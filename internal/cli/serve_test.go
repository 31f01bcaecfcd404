package cli

import (
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/config"
)

func TestSQLiteFolderIsCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	if err := sqliteFolder("sqlite:" + filepath.Join(dir, "latchkey.db") + "?x=1"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("folder not created: %v", err)
	}
	if err := sqliteFolder("postgres://u@h/db"); err != nil {
		t.Fatalf("postgres URL: %v", err)
	}
}

// dev listens on loopback unless an address was chosen explicitly.
func TestDevAddressIsLoopbackUnlessChosen(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	}
	parse := func(args ...string) *flag.FlagSet {
		fs := flag.NewFlagSet("dev", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("addr", ":8080", "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return fs
	}
	if addrChosen(parse(), env(nil)) {
		t.Fatal("no --addr and no LATCHKEY_ADDR counted as chosen")
	}
	if !addrChosen(parse("--addr", ":9000"), env(nil)) {
		t.Fatal("--addr not honoured")
	}
	if !addrChosen(parse(), env(map[string]string{"LATCHKEY_ADDR": "0.0.0.0:8080"})) {
		t.Fatal("LATCHKEY_ADDR not honoured")
	}
	if devAddr != "127.0.0.1:8080" {
		t.Fatalf("devAddr = %q", devAddr)
	}
}

// The metrics listener (LATCHKEY_METRICS_ADDR) gets the main server's
// timeouts, every one set: with only a header timeout its kept-alive,
// slow or unread connections were never closed.
func TestMetricsListenerHasTheServersTimeouts(t *testing.T) {
	h := http.NotFoundHandler()
	write := config.Defaults().RequestTimeout
	if got := httpServers(h, nil, write); len(got) != 1 {
		t.Fatalf("without a metrics handler: %d servers", len(got))
	}
	servers := httpServers(h, h, write)
	if len(servers) != 2 {
		t.Fatalf("with a metrics handler: %d servers", len(servers))
	}
	timeouts := func(s *http.Server) [4]time.Duration {
		return [4]time.Duration{s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout}
	}
	main, metrics := timeouts(servers[0]), timeouts(servers[1])
	for i, d := range main {
		if d <= 0 {
			t.Errorf("main server timeout %d is %v", i, d)
		}
	}
	if metrics != main {
		t.Errorf("metrics server timeouts (header, read, write, idle) %v, main server's %v", metrics, main)
	}
}

// Each command's --help names the address it listens on by default: dev's
// is loopback (devAddr), not serve's every-address :8080.
func TestHelpNamesTheDefaultAddress(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{"serve": "else :8080)", "dev": "else " + devAddr + ")"} {
		code, out, errs := runIn(t, t.Context(), filepath.Join(t.TempDir(), "help.db"), "", nil, cmd, "--help")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q; want %q", cmd, code, out, errs, want)
		}
	}
}
