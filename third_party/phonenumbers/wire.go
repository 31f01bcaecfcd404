package phonenumbers

import (
	"errors"
	"fmt"
)

// Latchkey patch: a decoder of the protobuf wire format, for the embedded
// metadata files only (data/metadata.xml.gz and
// data/shortnumber_metadata.xml.gz, gzipped PhoneMetadataCollection
// messages despite the names). It replaces proto.Unmarshal, the one reason
// the protobuf runtime (its reflection, descriptors and their init) was in
// the binary. It reads what proto.Unmarshal read: the fields of
// phonemetadata.proto by number, repeated scalars packed or not, a message
// field seen twice merged, unknown fields of every wire type skipped, and
// required fields checked. It is stricter in one way: a known field with
// the wrong wire type is an error, where protobuf would keep it as an
// unknown field, because it can only mean the data and the .proto differ.

// wireType is the low three bits of a field's tag.
type wireType uint8

const (
	wireVarint     wireType = 0
	wireFixed64    wireType = 1
	wireBytes      wireType = 2
	wireStartGroup wireType = 3
	wireEndGroup   wireType = 4
	wireFixed32    wireType = 5
)

// maxFieldNumber is the largest field number protobuf allows (2^29-1).
const maxFieldNumber = 1<<29 - 1

// maxGroupDepth bounds the nesting of skipped groups, so that malformed
// input cannot exhaust the stack.
const maxGroupDepth = 100

var (
	errTruncated       = errors.New("truncated")
	errVarintOverflow  = errors.New("varint overflows 64 bits")
	errGroupTooDeep    = errors.New("groups nested too deeply")
	errFieldNumber     = errors.New("invalid field number")
	errUnexpectedEnd   = errors.New("end-group without its start-group")
	errRequiredMissing = errors.New("required field missing")
	errWireType        = errors.New("wrong wire type")
)

// decodeMetadataCollection decodes a serialized PhoneMetadataCollection.
func decodeMetadataCollection(b []byte) (*PhoneMetadataCollection, error) {
	c := &PhoneMetadataCollection{}
	if err := c.decode(b); err != nil {
		return nil, fmt.Errorf("decoding phone metadata: %w", err)
	}
	return c, nil
}

// wireDecoder consumes a message's bytes from the front.
type wireDecoder struct {
	b []byte
}

func (d *wireDecoder) more() bool { return len(d.b) > 0 }

func (d *wireDecoder) varint() (uint64, error) {
	var v uint64
	for i := 0; ; i++ {
		if i >= len(d.b) {
			return 0, errTruncated
		}
		c := d.b[i]
		// The tenth byte holds bit 63 only.
		if i == 9 && c > 1 {
			return 0, errVarintOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			d.b = d.b[i+1:]
			return v, nil
		}
	}
}

func (d *wireDecoder) tag() (int32, wireType, error) {
	v, err := d.varint()
	if err != nil {
		return 0, 0, err
	}
	num := v >> 3
	if num == 0 || num > maxFieldNumber {
		return 0, 0, fmt.Errorf("%w: %d", errFieldNumber, num)
	}
	return int32(num), wireType(v & 7), nil
}

func (d *wireDecoder) take(n uint64) ([]byte, error) {
	if n > uint64(len(d.b)) {
		return nil, errTruncated
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out, nil
}

func (d *wireDecoder) lengthDelimited() ([]byte, error) {
	n, err := d.varint()
	if err != nil {
		return nil, err
	}
	return d.take(n)
}

// skip consumes the value of an unknown field.
func (d *wireDecoder) skip(num int32, typ wireType, depth int) error {
	var err error
	switch typ {
	case wireVarint:
		_, err = d.varint()
	case wireFixed64:
		_, err = d.take(8)
	case wireBytes:
		_, err = d.lengthDelimited()
	case wireFixed32:
		_, err = d.take(4)
	case wireStartGroup:
		if depth >= maxGroupDepth {
			return errGroupTooDeep
		}
		for {
			n, t, err := d.tag()
			if err != nil {
				return err
			}
			if t == wireEndGroup {
				if n != num {
					return fmt.Errorf("%w: group %d ended by end-group %d", errUnexpectedEnd, num, n)
				}
				return nil
			}
			if err := d.skip(n, t, depth+1); err != nil {
				return err
			}
		}
	case wireEndGroup:
		err = errUnexpectedEnd
	default:
		err = fmt.Errorf("%w: %d is not a wire type", errWireType, typ)
	}
	return err
}

// want refuses a known field sent with another wire type.
func want(got, want wireType) error {
	if got != want {
		return fmt.Errorf("%w %d, want %d", errWireType, got, want)
	}
	return nil
}

func (d *wireDecoder) string(typ wireType) (*string, error) {
	if err := want(typ, wireBytes); err != nil {
		return nil, err
	}
	b, err := d.lengthDelimited()
	if err != nil {
		return nil, err
	}
	return ptr(string(b)), nil
}

func (d *wireDecoder) int32(typ wireType) (*int32, error) {
	if err := want(typ, wireVarint); err != nil {
		return nil, err
	}
	v, err := d.varint()
	if err != nil {
		return nil, err
	}
	// An int32 is sent sign-extended to 64 bits; protobuf truncates.
	return ptr(int32(v)), nil
}

func (d *wireDecoder) bool(typ wireType) (*bool, error) {
	if err := want(typ, wireVarint); err != nil {
		return nil, err
	}
	v, err := d.varint()
	if err != nil {
		return nil, err
	}
	return ptr(v != 0), nil
}

// appendInt32 reads one element of a repeated int32, or a packed run of
// them (parsers must accept both, whatever the .proto says).
func (d *wireDecoder) appendInt32(typ wireType, dst *[]int32) error {
	if typ == wireBytes {
		b, err := d.lengthDelimited()
		if err != nil {
			return err
		}
		packed := wireDecoder{b}
		for packed.more() {
			v, err := packed.varint()
			if err != nil {
				return err
			}
			*dst = append(*dst, int32(v))
		}
		return nil
	}
	v, err := d.int32(typ)
	if err != nil {
		return err
	}
	*dst = append(*dst, *v)
	return nil
}

// message decodes an embedded message into m; a message field seen again
// merges into the same value, as protobuf does.
func (d *wireDecoder) message(typ wireType, decode func([]byte) error) error {
	if err := want(typ, wireBytes); err != nil {
		return err
	}
	b, err := d.lengthDelimited()
	if err != nil {
		return err
	}
	return decode(b)
}
