package phonenumbers

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fillEveryField sets every field of the struct p points to, pointers to
// fresh values and slices of two elements, so that a clone that forgets a
// field (one added later, say) shows.
func fillEveryField(t *testing.T, p any) {
	t.Helper()
	v := reflect.ValueOf(p).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
			setScalar(t, f.Elem(), i)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 2, 2))
			setScalar(t, f.Index(0), i)
			setScalar(t, f.Index(1), i+1)
		default:
			t.Fatalf("%s.%s: unexpected kind %s", v.Type(), v.Type().Field(i).Name, f.Kind())
		}
	}
}

func setScalar(t *testing.T, v reflect.Value, i int) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString("value " + string(rune('a'+i)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int32:
		v.SetInt(int64(100 + i))
	case reflect.Uint64:
		v.SetUint(uint64(1000 + i))
	default:
		t.Fatalf("unexpected kind %s", v.Kind())
	}
}

// notShared fails if a and b (structs of one type) share a pointer or a
// slice's array: the copy's fields must be its own, as proto.Merge made
// them, or writing through one would change the other.
func notShared(t *testing.T, a, b any) {
	t.Helper()
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := 0; i < va.NumField(); i++ {
		fa, fb := va.Field(i), vb.Field(i)
		name := va.Type().Field(i).Name
		switch fa.Kind() {
		case reflect.Pointer:
			if fa.Pointer() == fb.Pointer() {
				t.Errorf("%s: the copy shares the original's pointer", name)
			}
		case reflect.Slice:
			if fa.Len() > 0 && fa.Index(0).Addr().Pointer() == fb.Index(0).Addr().Pointer() {
				t.Errorf("%s: the copy shares the original's array", name)
			}
		}
	}
}

func TestClonePhoneNumberCopiesEveryField(t *testing.T) {
	n := &PhoneNumber{}
	fillEveryField(t, n)
	c := clonePhoneNumber(n)
	if diff := cmp.Diff(n, c); diff != "" {
		t.Fatalf("clone differs (-original +clone):\n%s", diff)
	}
	notShared(t, n, c)
	if diff := cmp.Diff(&PhoneNumber{}, clonePhoneNumber(&PhoneNumber{})); diff != "" {
		t.Fatalf("clone of an empty number (-want +got):\n%s", diff)
	}
}

func TestCloneNumberFormatCopiesEveryField(t *testing.T) {
	f := &NumberFormat{}
	fillEveryField(t, f)
	c := cloneNumberFormat(f)
	if diff := cmp.Diff(f, c); diff != "" {
		t.Fatalf("clone differs (-original +clone):\n%s", diff)
	}
	notShared(t, f, c)
	// proto.Merge left an empty repeated field nil.
	if got := cloneNumberFormat(&NumberFormat{LeadingDigitsPattern: []string{}}); got.LeadingDigitsPattern != nil {
		t.Fatalf("empty LeadingDigitsPattern cloned as %#v, want nil", got.LeadingDigitsPattern)
	}
}
