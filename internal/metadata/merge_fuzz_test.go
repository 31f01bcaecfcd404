package metadata_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/metadata"
)

// FuzzMerge merges two JSON objects from the fuzzer (what is stored, and
// an update as a request carries it) and checks Merge against a model of
// the documented rule written here, apart from Merge: keys merge at the
// top level only; a top-level null deletes its key; any other value,
// nested objects and arrays included, replaces the key's value whole.
// Properties: an accepted merge is exactly the model's result, holds at
// most MaxKeys keys and encodes in at most MaxBytes; a merge over either
// limit is refused with the catalogue's error for that limit, naming the
// field in its message and error_details; current is never modified, nor
// shares its top level with the result (a refused write leaves the
// caller's copy as it was; an accepted one cannot change it later).
func FuzzMerge(f *testing.F) {
	for _, c := range [][2]string{
		{`{"plan":"free","theme":"dark","tags":["a"],"nested":{"x":1,"y":2}}`, `{"plan":"pro","theme":null,"nested":{"z":3}}`},
		{`null`, `{"a":1,"b":null}`},
		{`{}`, `{}`},
		{`{"a":{"b":null}}`, `{"a":{"b":null,"c":[null]}}`},
		{`{"k00":1,"k01":1,"k02":1,"k03":1,"k04":1,"k05":1,"k06":1,"k07":1,"k08":1,"k09":1,"k10":1,"k11":1,"k12":1,"k13":1,"k14":1,"k15":1,"k16":1,"k17":1,"k18":1,"k19":1}`,
			`{"k00":null,"more":true}`},
		{`{"k00":1,"k01":1,"k02":1,"k03":1,"k04":1,"k05":1,"k06":1,"k07":1,"k08":1,"k09":1,"k10":1,"k11":1,"k12":1,"k13":1,"k14":1,"k15":1,"k16":1,"k17":1,"k18":1,"k19":1}`,
			`{"more":true}`},
		{`{"a":"` + strings.Repeat("x", 3000) + `"}`, `{"b":"` + strings.Repeat("y", 1081) + `"}`},
		{`{"a":"` + strings.Repeat("x", 3000) + `"}`, `{"b":"` + strings.Repeat("y", 1082) + `"}`},
		{`{"a":"<>&\u2028"}`, `{"a":"é","a":null}`},
	} {
		f.Add("trusted_metadata", []byte(c[0]), []byte(c[1]))
	}
	f.Fuzz(func(t *testing.T, field string, currentJSON, updateJSON []byte) {
		var current, update, before map[string]any
		if json.Unmarshal(currentJSON, &current) != nil || json.Unmarshal(updateJSON, &update) != nil {
			return // only objects (or null, for current: a creation) reach Merge
		}
		_ = json.Unmarshal(currentJSON, &before) // a deep copy, to see whether current changed

		want := mergeModel(current, update)
		got, err := metadata.Merge(field, current, update)
		if !reflect.DeepEqual(current, before) {
			t.Fatalf("Merge modified current: it was %v, it is %v", before, current)
		}
		wantType := apierr.Type("")
		if len(want) > metadata.MaxKeys {
			wantType = apierr.MetadataTooManyKeys
		} else if enc, _ := json.Marshal(want); len(enc) > metadata.MaxBytes {
			wantType = apierr.MetadataTooLarge
		}
		if wantType != "" {
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Type != wantType || ae.Details["field"] != field || !strings.Contains(ae.Message, field) {
				t.Fatalf("Merge(%s, %s) = %v, %v: want a %s error naming %q", currentJSON, updateJSON, got, err, wantType, field)
			}
			return
		}
		if err != nil {
			t.Fatalf("Merge(%s, %s) refused a result within the limits (%d keys): %v", currentJSON, updateJSON, len(want), err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Merge(%s, %s) = %v, want %v", currentJSON, updateJSON, got, want)
		}
		if enc, _ := json.Marshal(got); len(got) > metadata.MaxKeys || len(enc) > metadata.MaxBytes {
			t.Fatalf("Merge accepted %d keys in %d bytes", len(got), len(enc))
		}
		// The result is the caller's to change (it is stored, cached, sent)
		// without reaching back into current.
		const probe = "\x00probe"
		got[probe] = true
		if _, shared := current[probe]; shared {
			t.Fatalf("Merge's result shares its top level with current")
		}
	})
}

// mergeModel is the documented rule, on fresh maps: current's keys, then
// each of update's in turn, a null deleting.
func mergeModel(current, update map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range current {
		out[k] = v
	}
	for k, v := range update {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}
