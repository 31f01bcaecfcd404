package phonenumbers

import (
	"sync"
	"testing"
)

// TestShortNumberCollectionBeforeFirstCheck: with the short-number
// metadata loaded on first use (a Latchkey patch), a program may read
// ShortNumberMetadataCollection before any short-number check loads it.
// The checks must still work afterwards, not panic on empty metadata.
func TestShortNumberCollectionBeforeFirstCheck(t *testing.T) {
	// Back to the state of a program that has not touched short numbers.
	shortOnce = sync.Once{}
	shortNumberReloadMetadata = true
	currShortNumberMetadataColl = nil
	clear(shortNumberRegionToMetadataMap)

	coll, err := ShortNumberMetadataCollection()
	if err != nil || len(coll.GetMetadata()) == 0 {
		t.Fatalf("ShortNumberMetadataCollection: %d regions, %v", len(coll.GetMetadata()), err)
	}
	num, err := Parse("112", "DE")
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("short-number check after ShortNumberMetadataCollection panicked: %v", r)
			}
		}()
		if !IsValidShortNumberForRegion(num, "DE") {
			t.Errorf("112 is not a valid short number in DE")
		}
	}()
	if again, err := ShortNumberMetadataCollection(); err != nil || again != coll {
		t.Errorf("second ShortNumberMetadataCollection: %p, %v; want the first's %p", again, err, coll)
	}
}
