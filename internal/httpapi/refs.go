package httpapi

import (
	"net/http"
	"reflect"
	"strings"
	"sync"
)

// RefResolver rewrites in place the references a decoded request body
// makes to an organization and a member (its top-level string fields
// tagged organization_id and member_id; nil when the body type has none),
// such as an alias to the id it stands for. Decode calls it after
// decoding, so a handler sees only what it returns.
type RefResolver func(r *http.Request, orgID, memberID *string) error

// SetRefResolver has Decode call f for every body of the request. f is
// kept in the request's state, so r is returned as it is, unless it has
// no state yet (a handler called outside the middleware, in tests).
func SetRefResolver(r *http.Request, f RefResolver) *http.Request {
	r, st := withState(r)
	st.refs = f
	return r
}

// refFields locates a body type's reference fields (index paths for
// reflect.Value.FieldByIndex; nil when absent).
type refFields struct{ org, member []int }

// refTypes caches refFields per body type: the reflection runs once per
// type, and a body without references then costs one map load.
var refTypes sync.Map // reflect.Type -> refFields

func refsOf(t reflect.Type) refFields {
	if f, ok := refTypes.Load(t); ok {
		return f.(refFields)
	}
	var f refFields
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Type.Kind() != reflect.String || !sf.IsExported() || throughPointer(t, sf.Index) {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		// encoding/json fills the shallowest field of a name; so does this.
		switch {
		case name == "organization_id" && (f.org == nil || len(sf.Index) < len(f.org)):
			f.org = sf.Index
		case name == "member_id" && (f.member == nil || len(sf.Index) < len(f.member)):
			f.member = sf.Index
		}
	}
	refTypes.Store(t, f)
	return f
}

// throughPointer reports whether the field at index is promoted through an
// embedded pointer, which may be nil after decoding.
func throughPointer(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Pointer {
			return true
		}
		t = f.Type
	}
	return false
}

// resolveRefs runs the request's RefResolver, if any, on dst's references.
func resolveRefs(r *http.Request, dst any) error {
	st := stateOf(r.Context())
	if st == nil || st.refs == nil {
		return nil
	}
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	f := refsOf(v.Type())
	var org, member *string
	if f.org != nil {
		org = v.FieldByIndex(f.org).Addr().Interface().(*string)
	}
	if f.member != nil {
		member = v.FieldByIndex(f.member).Addr().Interface().(*string)
	}
	if (org == nil || *org == "") && (member == nil || *member == "") {
		return nil
	}
	return st.refs(r, org, member)
}
