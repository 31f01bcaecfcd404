package phonenumbers

// Temporary: this test and internal/legacypb (the protoc-gen-go code the
// package used before) go away with the protobuf dependency. It proves the
// hand-written decoder reads the embedded metadata exactly as
// proto.Unmarshal did.

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/latchkey/latchkey/third_party/phonenumbers/internal/legacypb"
)

func TestDecoderMatchesProtoUnmarshal(t *testing.T) {
	for _, blob := range []struct {
		name string
		data []byte
	}{
		{"territories", numberData},
		{"short numbers", shortNumberData},
	} {
		t.Run(blob.name, func(t *testing.T) {
			raw, err := decodeUnzip(blob.data)
			if err != nil {
				t.Fatal(err)
			}
			old := &legacypb.PhoneMetadataCollection{}
			if err := proto.Unmarshal(raw, old); err != nil {
				t.Fatalf("proto.Unmarshal: %v", err)
			}
			noUnknownFields(t, old.ProtoReflect())
			got, err := decodeMetadataCollection(raw)
			if err != nil {
				t.Fatalf("decodeMetadataCollection: %v", err)
			}
			want := convertLegacy(t, reflect.ValueOf(old), reflect.TypeOf(got)).Interface().(*PhoneMetadataCollection)
			if len(want.Metadata) < 10 {
				t.Fatalf("only %d regions decoded by protobuf", len(want.Metadata))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("decoder differs from proto.Unmarshal (-proto +decoder):\n%s", diff)
			}
		})
	}
}

// noUnknownFields makes sure the .proto knows every field in the data, so
// that equality covers the whole blob (the decoder skips unknown fields
// as protobuf does, so neither would notice one).
func noUnknownFields(t *testing.T, m protoreflect.Message) {
	t.Helper()
	if u := m.GetUnknown(); len(u) > 0 {
		t.Fatalf("%s has %d bytes of unknown fields", m.Descriptor().FullName(), len(u))
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil:
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				noUnknownFields(t, v.List().Get(i).Message())
			}
		default:
			noUnknownFields(t, v.Message())
		}
		return true
	})
}

// convertLegacy copies a generated value into the hand-written type of
// the same shape, field by field by name. It fails if either type has an
// exported field the other lacks, so that no field escapes the comparison.
func convertLegacy(t *testing.T, v reflect.Value, to reflect.Type) reflect.Value {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		out := reflect.New(to.Elem())
		if v.IsNil() {
			return reflect.Zero(to)
		}
		out.Elem().Set(convertLegacy(t, v.Elem(), to.Elem()))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(to)
		}
		out := reflect.MakeSlice(to, v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(convertLegacy(t, v.Index(i), to.Elem()))
		}
		return out
	case reflect.Struct:
		out := reflect.New(to).Elem()
		exported := 0
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			exported++
			nf, ok := to.FieldByName(f.Name)
			if !ok {
				t.Fatalf("%s.%s has no hand-written counterpart", v.Type(), f.Name)
			}
			out.FieldByIndex(nf.Index).Set(convertLegacy(t, v.Field(i), nf.Type))
		}
		if exported != to.NumField() {
			t.Fatalf("%s has %d fields, the generated %s %d", to, to.NumField(), v.Type(), exported)
		}
		return out
	case reflect.String, reflect.Bool, reflect.Int32, reflect.Int64, reflect.Uint64:
		if v.Kind() != to.Kind() {
			t.Fatalf("kind %s became %s", v.Kind(), to.Kind())
		}
		return v.Convert(to)
	}
	t.Fatalf("unexpected kind %s", v.Kind())
	return reflect.Value{}
}

// TestDecodeEveryFieldAsProtobufDoes checks TestDecodeEveryField's
// expectations (merging, packed and unpacked lengths, skipped groups)
// against proto.Unmarshal itself.
func TestDecodeEveryFieldAsProtobufDoes(t *testing.T) {
	old := &legacypb.PhoneMetadata{}
	if err := proto.Unmarshal(fullMetadata(), old); err != nil {
		t.Fatal(err)
	}
	got := convertLegacy(t, reflect.ValueOf(old), reflect.TypeOf(&PhoneMetadata{})).Interface()
	if diff := cmp.Diff(wantFullMetadata(), got); diff != "" {
		t.Fatalf("proto.Unmarshal (-want +got):\n%s", diff)
	}
}
