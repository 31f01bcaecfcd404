package sso

import (
	"context"
	"strconv"
	"testing"
)

// The key set cache keeps at most maxKeySets URLs, dropping the least
// recently used: administrators name the URLs, and new ones would
// otherwise pile up for the life of the process.
func TestKeySetsBounded(t *testing.T) {
	var k keySets
	ctx := context.Background()
	kept := k.get(ctx, "https://idp.example.com/jwks")
	for i := 0; i < 2*maxKeySets; i++ {
		k.get(ctx, "https://idp"+strconv.Itoa(i)+".example.com/jwks")
		// The first URL keeps being used, so it is never the oldest.
		if k.get(ctx, "https://idp.example.com/jwks") != kept {
			t.Fatalf("after %d URLs the key set in use was dropped", i)
		}
	}
	if n := k.len(); n != maxKeySets {
		t.Fatalf("%d key sets cached, want %d", n, maxKeySets)
	}
}
