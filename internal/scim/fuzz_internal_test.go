package scim

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// Robustness sweep: the filter and PATCH path parsers, and applyPatch,
// on random inputs built from SCIM's own tokens, never panic.
func TestParsersDoNotPanic(t *testing.T) {
	toks := []string{"emails", "[", "]", ".", " ", "eq", "EQ", "\"", "\\", "value", "type", "work", "\"work\"", "userName",
		schemaEnterprise, ":", schemaUser, schemaGroup, "İ", "K", "members", "name", "givenName", "\x00", "\xff", "a", "and", "or", "(", ")"}
	vals := []any{nil, true, "False", 1.5, "x", []any{}, []any{"s"}, []any{map[string]any{"type": "work", "value": "a@b.c"}},
		map[string]any{}, map[string]any{"active": "maybe"}, map[string]any{"emails": "x"}, map[string]any{"name": map[string]any{"givenName": 3}}}
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		var b strings.Builder
		for n := rng.IntN(8); n >= 0; n-- {
			b.WriteString(toks[rng.IntN(len(toks))])
		}
		return b.String()
	}
	for i := 0; i < 20000; i++ {
		s := gen()
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic on %q: %v", s, p)
				}
			}()
			_, _ = parseFilter(s)
			for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
				_, _, _ = userFilter(d, s)
				_, _, _ = groupFilter(d, s)
			}
			_, _ = parsePath(s)
			u := &user{UserName: "a@b.c", Emails: []multi{{Value: "a@b.c", Type: "work", Primary: true}}}
			doc := foldKeys(u.toDoc()).(map[string]any)
			doc["active"] = true
			ops := []patchOp{{Op: []string{"add", "Replace", "remove"}[rng.IntN(3)], Path: s, Value: vals[rng.IntN(len(vals))]}}
			if rng.IntN(4) == 0 {
				ops[0].Path = ""
			}
			if steps, err := compilePatch(ops); err == nil && applyPatch(doc, steps) == nil {
				raw, _ := json.Marshal(doc)
				var back map[string]any
				_ = json.Unmarshal(raw, &back)
				if back != nil {
					_, _ = parseUser(back)
				}
			}
		}()
	}
}
