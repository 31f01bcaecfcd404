// Package metadata holds the API family's rule for trusted and untrusted
// metadata objects: how an update merges into what is stored, and the
// limits on the result. Organizations, members and M2M clients all write
// through it, so the rule cannot differ between them.
package metadata

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/latchkey/latchkey/internal/apierr"
)

// The API family's limits on a metadata object (an organization's
// trusted_metadata, a member's trusted and untrusted metadata, an M2M
// client's trusted_metadata), checked on the object as stored, after an
// update is merged in.
const (
	MaxKeys  = 20
	MaxBytes = 4096 // the encoded JSON
)

// Merge is the one rule for every metadata write, as the API
// family documents it ("Metadata update behavior"): the update is merged
// into current at the top level only; a top-level null deletes that key;
// any other value, nested objects and arrays included, replaces the key's
// value whole. A creation merges into nothing (current nil), so it stores
// the object without its null keys. The result is checked against the
// limits, so an update cannot grow an object past them a few keys at a
// time; field names the object in the error.
//
// current is not modified: the caller's copy (a cached organization, say)
// stays as it was if the write is refused.
func Merge(field string, current, update map[string]any) (map[string]any, error) {
	out := maps.Clone(current)
	if out == nil {
		out = make(map[string]any, len(update))
	}
	for k, v := range update {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	if len(out) > MaxKeys {
		return nil, apierr.New(apierr.MetadataTooManyKeys).WithMessage(
			fmt.Sprintf("%s may hold at most %d top-level keys; it would hold %d.", field, MaxKeys, len(out))).
			WithDetails(map[string]any{"field": field})
	}
	enc, err := json.Marshal(out)
	if err != nil {
		// Values decoded from a request always encode; anything else is a
		// programming error, not the caller's.
		return nil, fmt.Errorf("metadata: encode %s: %w", field, err)
	}
	if len(enc) > MaxBytes {
		return nil, apierr.New(apierr.MetadataTooLarge).WithMessage(
			fmt.Sprintf("%s may be at most %d bytes of JSON; it would be %d.", field, MaxBytes, len(enc))).
			WithDetails(map[string]any{"field": field})
	}
	return out, nil
}
