package store

import (
	"os"
	"testing"
	"time"
)

// The connect timeout is the operator's when they chose one (in the URL or
// PGCONNECT_TIMEOUT, 0 included) and ConnectTimeout otherwise. An empty
// PGCONNECT_TIMEOUT (a bare line in an environment file) is no choice:
// pgx ignores it, and taking it for one left new connections with no
// limit at all.
func TestConnectTimeoutChoice(t *testing.T) {
	const base = "postgres://u@db.example:5432/app"
	for _, c := range []struct {
		env  string // "-" leaves it unset
		dsn  string
		want time.Duration
	}{
		{"-", base, ConnectTimeout},
		{"", base, ConnectTimeout},
		{"7", base, 7 * time.Second},
		{"0", base, 0},
		{"-", base + "?connect_timeout=3", 3 * time.Second},
	} {
		if c.env == "-" {
			t.Setenv("PGCONNECT_TIMEOUT", "")
			unsetenv(t, "PGCONNECT_TIMEOUT")
		} else {
			t.Setenv("PGCONNECT_TIMEOUT", c.env)
		}
		cfg, err := pgConfig(c.dsn)
		if err != nil {
			t.Errorf("env %q, %s: %v", c.env, c.dsn, err)
			continue
		}
		if cfg.ConnectTimeout != c.want {
			t.Errorf("env %q, %s: connect timeout %s, want %s", c.env, c.dsn, cfg.ConnectTimeout, c.want)
		}
	}
}

// unsetenv removes name for the rest of the test (t.Setenv restores it).
func unsetenv(t *testing.T, name string) {
	t.Helper()
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}
