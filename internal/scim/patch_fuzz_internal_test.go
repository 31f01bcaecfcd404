package scim

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
)

// FuzzPatch reads a User PATCH body as patchUser does (readJSON,
// compilePatch) and applies it to a registration's document (patchReg).
// Properties: nothing panics; every refusal is a SCIM error (the wire's
// scimType and detail, never a 500); applyPatch leaves the steps as they
// were, so applying them to a second copy of the document (as patchUser
// does when the registration changed meanwhile) gives byte for byte the
// same result; and a patched document keeps every multi-valued attribute
// within maxPatchValues.
func FuzzPatch(f *testing.F) {
	for _, body := range []string{
		`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"active","value":false}]}`,
		`{"Operations":[{"op":"Replace","path":"emails[type eq \"work\"].value","value":"josé@acme.test"},{"op":"Replace","path":"active","value":"False"}]}`,
		`{"Operations":[{"op":"replace","value":{"externalId":"x","active":true,"name":{"givenName":"Ada"}}}]}`,
		`{"Operations":[{"op":"replace","path":"name.familyName","value":"ØSTERGÅRD"}]}`,
		`{"Operations":[{"op":"add","path":"emails","value":[{"value":"b@acme.test","type":"home"}]},{"op":"remove","path":"emails[type eq \"work\"]"}]}`,
		`{"Operations":[{"op":"add","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager","value":{"value":"m1"}}]}`,
		`{"Operations":[{"op":"replace","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User","value":{"department":"R&D"}}]}`,
		`{"Operations":[{"op":"add","path":"roles[primary eq \"True\"].value","value":"admin"},{"op":"add","path":"roles[primary eq true]","value":{"display":"A"}}]}`,
		`{"Operations":[{"op":"replace","path":"urn:ietf:params:scim:schemas:extension:custom:2.0:User:badge","value":"7"}]}`,
		`{"Operations":[{"op":"remove","path":"emails[type eq \"work\"].value"},{"op":"remove","path":"name"}]}`,
		`{"Operations":[{"op":"add","path":"x","value":[1,2,3]},{"op":"add","path":"X","value":[4]}]}`,
		`{"Operations":[{"op":"replace","path":"x","value":{"a":1}},{"op":"replace","path":"x","value":{"b":2}}]}`,
		`{"Operations":"x"}`,
		`{"Operations":[{"op":5}]}`,
	} {
		f.Add([]byte(body))
	}
	base := &user{UserName: "ada@acme.test", DisplayName: "Ada", Name: &name{GivenName: "Ada", FamilyName: "Lovelace"},
		Emails: []multi{{Value: "ada@acme.test", Type: "work", Primary: true}, {Value: "ada@home.test", Type: "home"}},
		Roles:  []multi{{Value: "staff", Primary: true}}}
	doc := func() map[string]any {
		d := foldKeys(base.toDoc()).(map[string]any)
		d[foldKey("active")] = true
		return d
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req patchRequest
		r := httptest.NewRequest("PATCH", "/Users/x", bytes.NewReader(body))
		if err := readJSON(r, &req); err != nil {
			wantSCIMError(t, "readJSON", err)
			return
		}
		steps, err := compilePatch(req.Operations)
		if err != nil {
			wantSCIMError(t, "compilePatch", err)
			return
		}
		before, err := json.Marshal(stepValues(steps))
		if err != nil {
			t.Fatalf("steps do not marshal: %v", err)
		}
		first, second := doc(), doc()
		err1, err2 := applyPatch(first, steps), applyPatch(second, steps)
		if after, _ := json.Marshal(stepValues(steps)); !bytes.Equal(before, after) {
			t.Fatalf("applyPatch changed its steps:\n%s\n%s", before, after)
		}
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("the same steps on the same document: %v, then %v", err1, err2)
		}
		if err1 != nil {
			wantSCIMError(t, "applyPatch", err1)
			return
		}
		a, errA := json.Marshal(first)
		b, errB := json.Marshal(second)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("the same steps on the same document differ:\n%s (%v)\n%s (%v)", a, errA, b, errB)
		}
		checkValueCounts(t, first)
		if _, err := decodeUser(a); err != nil {
			wantSCIMError(t, "decodeUser", err)
		}
	})
}

// stepValues is what applyPatch must leave alone: each step's kind, path
// and value.
func stepValues(steps []patchStep) []any {
	out := make([]any, len(steps))
	for i, s := range steps {
		out[i] = []any{s.kind, s.pp.attr, s.pp.sub, s.pp.ext, s.pp.filterAttr, s.pp.filterValue, s.value}
	}
	return out
}

func wantSCIMError(t *testing.T, stage string, err error) {
	t.Helper()
	var se *scimError
	if !errors.As(err, &se) || se.status < 400 || se.status >= 500 {
		t.Fatalf("%s: %v (%T) is not a 4xx SCIM error", stage, err, err)
	}
}

// checkValueCounts fails when any list in v holds more than
// maxPatchValues elements.
func checkValueCounts(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			checkValueCounts(t, e)
		}
	case []any:
		if len(x) > maxPatchValues {
			t.Fatalf("a patched list holds %d values, over %d", len(x), maxPatchValues)
		}
		for _, e := range x {
			checkValueCounts(t, e)
		}
	}
}
