package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// Writes from many goroutines all land, whole, while another reads.
func TestConcurrentWritesAllLand(t *testing.T) {
	t.Parallel()
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("line\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(b.String(), "line\n"); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
}

// A bounded buffer keeps whole writes up to Max bytes and drops the rest,
// each reported written; an unbounded one keeps everything.
func TestMaxDropsWholeWritesPastIt(t *testing.T) {
	t.Parallel()
	b := Buffer{Max: 12}
	for _, w := range []string{"line1\n", "line2\n", "line3\n", "x"} {
		if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("write %q: %d %v", w, n, err)
		}
	}
	if got := b.String(); got != "line1\nline2\n" {
		t.Fatalf("kept %q, want the first two lines", got)
	}
	var u Buffer
	for range 3 {
		_, _ = u.Write([]byte("line\n"))
	}
	if got := u.String(); got != "line\nline\nline\n" {
		t.Fatalf("unbounded kept %q", got)
	}
}
