package testkeys

import (
	"sync"
	"testing"
)

// TestPoolKeysDistinct proves the committed pool holds Size different,
// valid RSA-2048 keys: a pool with a repeated key would give two projects
// one signing key, and tests telling them apart would pass by chance.
func TestPoolKeysDistinct(t *testing.T) {
	seen := map[string]int{}
	for i, k := range load() {
		if err := k.Validate(); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
		n := k.N.String()
		if j, dup := seen[n]; dup {
			t.Fatalf("keys %d and %d are the same key", j, i)
		}
		seen[n] = i
	}
	if len(seen) < 64 {
		t.Fatalf("pool has %d keys, want at least 64", len(seen))
	}
}

// TestNextRoundRobin proves Next hands out every key once before
// repeating, even from concurrent callers: consecutive requests within a
// test (two projects, a rotation) must get different keys.
func TestNextRoundRobin(t *testing.T) {
	n := Size()
	got := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { got <- Next().N.String() })
	}
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for k := range got {
		if seen[k] {
			t.Fatalf("Next gave one key twice within %d calls", n)
		}
		seen[k] = true
	}
	a, b := Next(), Next()
	if a.Equal(b) {
		t.Fatal("two consecutive calls to Next gave the same key")
	}
}
