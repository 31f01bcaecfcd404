package cli

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
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
