package keyset

import (
	"encoding/base64"
	"testing"
)

func TestCursorRoundTripAndRefusals(t *testing.T) {
	c := Cursor{CreatedAt: 1700000000123, ID: "organization-test-a|b"}
	got, err := Decode(c.Encode())
	if err != nil || got == nil || *got != c {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	if got, err := Decode(""); got != nil || err != nil {
		t.Fatalf("empty cursor: %+v %v", got, err)
	}
	for _, bad := range []string{"!!", base64.RawURLEncoding.EncodeToString([]byte("1|x")),
		base64.RawURLEncoding.EncodeToString([]byte("c1|x|id")), base64.RawURLEncoding.EncodeToString([]byte("c1|5|"))} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}

func TestLimitAndBefore(t *testing.T) {
	for in, want := range map[int]int{0: DefaultLimit, 1: 1, MaxLimit: MaxLimit} {
		if got, err := Limit(in); err != nil || got != want {
			t.Errorf("Limit(%d) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []int{-1, MaxLimit + 1} {
		if _, err := Limit(bad); err == nil {
			t.Errorf("Limit(%d) accepted", bad)
		}
	}
	c := &Cursor{CreatedAt: 10, ID: "m"}
	if !c.Before(9, "z") || !c.Before(10, "m") || c.Before(10, "n") || c.Before(11, "a") {
		t.Error("Before orders by (created_at, id)")
	}
	var none *Cursor
	if none.Before(0, "") {
		t.Error("a nil cursor is before every row")
	}
}
