package keyset

import (
	"encoding/base64"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
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

// Slice orders rows the way the cursor compares them, whatever order they
// came in (a database's collation may put "Client-B" between "client-a" and
// "client-C"): paged one or two at a time, every row comes back once, in
// (created_at, bytewise id) order.
func TestSliceOrdersAsTheCursorCompares(t *testing.T) {
	t.Parallel()
	// As a case-insensitive collation returns them; bytewise, upper case
	// comes first.
	rows := []Cursor{{1, "z"}, {5, "client-a"}, {5, "Client-B"}, {5, "client-C"}, {9, "a"}}
	want := []string{"z", "Client-B", "client-C", "client-a", "a"}
	key := func(c Cursor) Cursor { return c }
	for _, limit := range []int{1, 2, 10} {
		var got []string
		var after *Cursor
		for range len(rows) + 1 {
			page, next := Slice(slices.Clone(rows), key, after, limit)
			for _, c := range page {
				got = append(got, c.ID)
			}
			if next == nil {
				break
			}
			var err error
			if after, err = Decode(*next); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: pages gave %q, want %q", limit, got, want)
		}
	}
	if page, next := Slice([]Cursor(nil), key, nil, 10); page == nil || len(page) != 0 || next != nil {
		t.Errorf("no rows: %v %v, want an empty page and no cursor", page, next)
	}
}

// FuzzCursor: any string a client passes as a cursor either decodes to a
// cursor that encodes back to itself, or is invalid_request; a cursor the
// server made always decodes to what it encoded.
func FuzzCursor(f *testing.F) {
	f.Add("", int64(1767225600000), "organization-test-1")
	f.Add(Cursor{CreatedAt: 42, ID: "member-x"}.Encode(), int64(-1), "a|b")
	f.Add("YzF8MXw", int64(0), "")
	f.Add("!!!", int64(9223372036854775807), "\x00")
	f.Fuzz(func(t *testing.T, s string, at int64, id string) {
		c, err := Decode(s)
		switch {
		case err != nil && !apierr.Is(err, apierr.InvalidRequest):
			t.Fatalf("Decode(%q): %v", s, err)
		case err == nil && c != nil:
			if !httpapi.Clean(c.ID) {
				t.Fatalf("Decode(%q) accepted id %q, which PostgreSQL refuses", s, c.ID)
			}
			again, err := Decode(c.Encode())
			if err != nil || *again != *c {
				t.Fatalf("cursor %q does not survive a round trip: %+v, %v", s, again, err)
			}
		case err == nil && s != "":
			t.Fatalf("Decode(%q) returned no cursor and no error", s)
		}
		if id == "" || !httpapi.Clean(id) {
			return // the server makes cursors only from stored ids
		}
		made := Cursor{CreatedAt: at, ID: id}
		back, err := Decode(made.Encode())
		if err != nil || back == nil || *back != made {
			t.Fatalf("cursor %+v does not survive a round trip: %+v, %v", made, back, err)
		}
	})
}
