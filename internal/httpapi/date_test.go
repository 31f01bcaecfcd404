package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A JSON answer carries its own Date, as net/http would format it, and the
// answers of one second share one formatted value.
func TestJSONAnswerDate(t *testing.T) {
	t.Parallel()
	answer := func() []string {
		w := httptest.NewRecorder()
		WriteJSON(w, httptest.NewRequest(http.MethodGet, "/x", nil), Backend, http.StatusOK, &Common{})
		return w.Header()["Date"]
	}
	for range 3 { // retried only when a second ends between the two answers
		before := time.Now()
		first, second := answer(), answer()
		after := time.Now()
		if len(first) != 1 || len(second) != 1 {
			t.Fatalf("Date = %q, %q; want one value each", first, second)
		}
		at, err := time.Parse(http.TimeFormat, first[0])
		if err != nil {
			t.Fatalf("Date %q is not an http.TimeFormat date: %v", first[0], err)
		}
		if at.Before(before.Add(-time.Second)) || at.After(after) {
			t.Fatalf("Date %q is not within a second of %v", first[0], before.UTC())
		}
		if before.Unix() != after.Unix() {
			continue
		}
		if &first[0] != &second[0] {
			t.Fatalf("two answers of one second formatted Date twice (%q, %q)", first[0], second[0])
		}
		return
	}
	t.Fatal("every try straddled a second")
}

// net/http keeps the Date writeBody set, and sends only that one.
func TestJSONAnswerDateOverHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, r, Backend, http.StatusOK, &Common{})
	}))
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if d := res.Header.Values("Date"); len(d) != 1 {
		t.Fatalf("Date = %q, want one value", d)
	} else if _, err := time.Parse(http.TimeFormat, d[0]); err != nil {
		t.Fatalf("Date %q: %v", d[0], err)
	}
}

// BenchmarkDate compares the cached Date with the formatting net/http does
// for an answer without one:
//
//	go test ./internal/httpapi/ -run '^$' -bench Date -benchmem
func BenchmarkDate(b *testing.B) {
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			_ = dateHeader()
		}
	})
	b.Run("net-http", func(b *testing.B) {
		var buf [29]byte
		for b.Loop() {
			_ = time.Now().UTC().AppendFormat(buf[:0], http.TimeFormat)
		}
	})
}
