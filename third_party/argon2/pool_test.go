package argon2

// Latchkey's tests of its patch: reused block memory must give upstream's
// keys (golang.org/x/crypto/argon2 stays a dependency for this comparison).

import (
	"bytes"
	"fmt"
	"testing"

	upstream "golang.org/x/crypto/argon2"
)

// TestReusedBlocksGiveUpstreamKeys derives keys for several parameter sets in
// turn, three rounds over, so most calls run on a buffer an earlier call
// (of the same or another size) left behind.
func TestReusedBlocksGiveUpstreamKeys(t *testing.T) {
	cases := []struct {
		time, memory uint32
		threads      uint8
	}{{1, 64, 1}, {2, 256, 1}, {3, 256, 4}, {2, 19456, 1}, {1, 64, 1}}
	salt := []byte("0123456789abcdef")
	for round := range 3 {
		for i, c := range cases {
			pw := fmt.Appendf(nil, "password %d.%d", round, i)
			if got, want := IDKey(pw, salt, c.time, c.memory, c.threads, 32), upstream.IDKey(pw, salt, c.time, c.memory, c.threads, 32); !bytes.Equal(got, want) {
				t.Fatalf("round %d, IDKey%+v: %x, upstream %x", round, c, got, want)
			}
			if got, want := Key(pw, salt, c.time, c.memory, c.threads, 32), upstream.Key(pw, salt, c.time, c.memory, c.threads, 32); !bytes.Equal(got, want) {
				t.Fatalf("round %d, Key%+v: %x, upstream %x", round, c, got, want)
			}
		}
	}
}

// TestADirtyBufferDoesNotChangeTheKey hands the pool a buffer of non-zero
// blocks and checks the key that is then derived in it. It fails when the
// first pass XORs into the buffer instead of writing it.
func TestADirtyBufferDoesNotChangeTheKey(t *testing.T) {
	const memory = 64 // blocks; a multiple of 4 lanes' sync points, so kept as is
	pw, salt := []byte("correct horse"), []byte("0123456789abcdef")
	want := upstream.IDKey(pw, salt, 2, memory, 1, 32)
	// sync.Pool may drop what it is given (it does so on purpose under the
	// race detector), so try until the derivation has used the dirty buffer.
	for try := range 50 {
		dirty := make([]block, memory)
		for i := range dirty {
			for j := range dirty[i] {
				dirty[i][j] = ^uint64(i*blockLength + j)
			}
		}
		for blockPool.Get() != nil {
			// Empty the pool, so that the next call finds the dirty buffer.
		}
		blockPool.Put(&dirty)
		if got := IDKey(pw, salt, 2, memory, 1, 32); !bytes.Equal(got, want) {
			t.Fatalf("try %d: %x, upstream %x", try, got, want)
		}
		if dirty[memory-1][0] != ^uint64((memory-1)*blockLength) {
			return // the key above was derived in the dirty buffer
		}
	}
	t.Fatal("the pool never handed out the dirty buffer")
}
