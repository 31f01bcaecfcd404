package metadata_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/metadata"
)

func TestMerge(t *testing.T) {
	current := map[string]any{"plan": "free", "theme": "dark", "tags": []any{"a"}, "nested": map[string]any{"x": 1.0, "y": 2.0}}
	for _, c := range []struct {
		name    string
		current map[string]any
		update  map[string]any
		want    map[string]any
	}{
		{"create drops null keys", nil, map[string]any{"a": 1.0, "b": nil}, map[string]any{"a": 1.0}},
		{"create from nothing", nil, nil, map[string]any{}},
		{"adds and replaces at the top level", current, map[string]any{"plan": "pro", "seats": 5.0},
			map[string]any{"plan": "pro", "seats": 5.0, "theme": "dark", "tags": []any{"a"}, "nested": map[string]any{"x": 1.0, "y": 2.0}}},
		{"null deletes a key", current, map[string]any{"theme": nil, "absent": nil},
			map[string]any{"plan": "free", "tags": []any{"a"}, "nested": map[string]any{"x": 1.0, "y": 2.0}}},
		{"nested objects and arrays are replaced whole", current, map[string]any{"nested": map[string]any{"z": 3.0}, "tags": []any{"b"}},
			map[string]any{"plan": "free", "theme": "dark", "tags": []any{"b"}, "nested": map[string]any{"z": 3.0}}},
		{"empty update changes nothing", current, map[string]any{}, current},
	} {
		got, err := metadata.Merge("trusted_metadata", c.current, c.update)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	if _, ok := current["seats"]; ok || current["theme"] != "dark" {
		t.Errorf("the current object was modified: %v", current)
	}

	// Limits apply to the merged result: 20 keys fit, a 21st does not,
	// whether it comes in the update or was already stored.
	twenty := keys(20, "v")
	if _, err := metadata.Merge("m", nil, twenty); err != nil {
		t.Errorf("20 keys: %v", err)
	}
	_, err := metadata.Merge("m", twenty, map[string]any{"one_more": 1.0})
	wantType(t, "21 keys", err, apierr.MetadataTooManyKeys)
	if _, err := metadata.Merge("m", twenty, map[string]any{"k00": nil, "one_more": 1.0}); err != nil {
		t.Errorf("a key deleted as another is added: %v", err)
	}
	// {"k":"..."} is 8 bytes of JSON around the value.
	if _, err := metadata.Merge("m", nil, map[string]any{"k": strings.Repeat("x", metadata.MaxBytes-8)}); err != nil {
		t.Errorf("exactly %d bytes: %v", metadata.MaxBytes, err)
	}
	_, err = metadata.Merge("m", nil, map[string]any{"k": strings.Repeat("x", metadata.MaxBytes-7)})
	wantType(t, "one byte over", err, apierr.MetadataTooLarge)
	_, err = metadata.Merge("m", map[string]any{"a": strings.Repeat("x", 3000)}, map[string]any{"b": strings.Repeat("x", 3000)})
	wantType(t, "too large once merged", err, apierr.MetadataTooLarge)
}

func keys(n int, v any) map[string]any {
	m := map[string]any{}
	for i := range n {
		m[fmt.Sprintf("k%02d", i)] = v
	}
	return m
}

func wantType(t *testing.T, what string, err error, want apierr.Type) {
	t.Helper()
	if !apierr.Is(err, want) {
		t.Errorf("%s: got %v, want %s", what, err, want)
	}
}
