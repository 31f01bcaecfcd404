package connectedapps

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// FuzzDecodeCursor: a client search cursor either decodes to an id the
// database accepts and encodes back to the same position, or is
// invalid_request.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(EncodeCursor(1767225600000, "connected-app-test-1"))
	f.Add("MXwAeP8")
	f.Add("!!")
	f.Add("")
	f.Fuzz(func(t *testing.T, c string) {
		at, id, err := DecodeCursor(c)
		if err != nil {
			if !apierr.Is(err, apierr.InvalidRequest) {
				t.Fatalf("DecodeCursor(%q): %v", c, err)
			}
			return
		}
		if c == "" {
			return
		}
		if !httpapi.Clean(id) {
			t.Fatalf("DecodeCursor(%q) accepted id %q", c, id)
		}
		if at2, id2, err := DecodeCursor(EncodeCursor(at, id)); err != nil || at2 != at || id2 != id {
			t.Fatalf("cursor %q does not survive a round trip: %d %q %v", c, at2, id2, err)
		}
	})
}
