package session

import (
	"reflect"
	"testing"
)

// clone copies every object a Factor points to, including any added
// later: each pointer and slice field of a fully set factor (and of its
// OAuth factor) must come back equal in value but not shared.
func TestFactorCloneSharesNothing(t *testing.T) {
	var f Factor
	fill(t, reflect.ValueOf(&f).Elem())
	c := f.clone()
	if !reflect.DeepEqual(f, c) {
		t.Fatalf("clone changed the factor:\n%+v\n%+v", f, c)
	}
	shared(t, "Factor", reflect.ValueOf(f), reflect.ValueOf(c))
	// And cloneFactors clones each, in order.
	out := cloneFactors([]Factor{f}, f)
	if len(out) != 2 || !reflect.DeepEqual(out[0], f) || !reflect.DeepEqual(out[1], f) {
		t.Fatalf("cloneFactors: %+v", out)
	}
	shared(t, "cloneFactors[0]", reflect.ValueOf(f), reflect.ValueOf(out[0]))
	shared(t, "cloneFactors[1]", reflect.ValueOf(f), reflect.ValueOf(out[1]))
}

// fill sets every exported field of the struct v, allocating pointers
// and one-element slices.
func fill(t *testing.T, v reflect.Value) {
	for i := range v.NumField() {
		fv := v.Field(i)
		if !fv.CanSet() {
			continue
		}
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(v.Type().Field(i).Name)
		case reflect.Pointer:
			fv.Set(reflect.New(fv.Type().Elem()))
			fill(t, fv.Elem())
		case reflect.Slice:
			fv.Set(reflect.MakeSlice(fv.Type(), 1, 1))
			if fv.Index(0).Kind() == reflect.String {
				fv.Index(0).SetString("x")
			}
		case reflect.Struct:
			if fv.Type().PkgPath() == "" || fv.Type().Name() == "Time" {
				continue
			}
			fill(t, fv)
		}
	}
}

// shared fails when a and b, equal structs, hold the same pointer or
// slice backing array anywhere.
func shared(t *testing.T, path string, a, b reflect.Value) {
	t.Helper()
	for i := range a.NumField() {
		name := path + "." + a.Type().Field(i).Name
		fa, fb := a.Field(i), b.Field(i)
		switch fa.Kind() {
		case reflect.Pointer:
			if fa.IsNil() {
				continue
			}
			if fa.Pointer() == fb.Pointer() {
				t.Errorf("%s is shared", name)
				continue
			}
			if fa.Elem().Kind() == reflect.Struct {
				shared(t, name, fa.Elem(), fb.Elem())
			}
		case reflect.Slice:
			if fa.Len() > 0 && fa.Pointer() == fb.Pointer() {
				t.Errorf("%s is shared", name)
			}
		}
	}
}
