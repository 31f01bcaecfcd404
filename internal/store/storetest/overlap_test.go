package storetest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// interleaveChild marks the run of this test binary that
// TestInterleaveEndsWhenSecondFails starts: the one whose second fails.
const interleaveChild = "LATCHKEY_STORETEST_INTERLEAVE_CHILD"

// A t.Fatal in second ends its goroutine without a result; Interleave must
// still return (the test then fails), not wait for it forever. The failing
// test runs in a child process, so that its failure is this test's
// evidence rather than this test's own failure.
func TestInterleaveEndsWhenSecondFails(t *testing.T) {
	if os.Getenv(interleaveChild) != "" {
		db := Postgres(t)
		Interleave(t, db, func(store.Querier) error { return nil }, func() error {
			t.Fatal("second fails")
			return nil
		}, nil)
		return
	}
	if os.Getenv(EnvPostgres) == "" {
		t.Skip(EnvPostgres + " not set")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestInterleaveEndsWhenSecondFails$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), interleaveChild+"=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("Interleave still waited for second after 30 s:\n%s", out)
	}
	if err == nil || !strings.Contains(string(out), "second fails") || !strings.Contains(string(out), "--- FAIL") {
		t.Fatalf("the child should fail with second's t.Fatal (err %v):\n%s", err, out)
	}
}
