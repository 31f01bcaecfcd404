package store

import "testing"

func TestPlaceholders(t *testing.T) {
	for _, c := range []struct {
		from, n int
		want    string
	}{{1, 0, ""}, {1, 1, "$1"}, {3, 3, "$3, $4, $5"}} {
		if got := Placeholders(c.from, c.n); got != c.want {
			t.Errorf("Placeholders(%d, %d) = %q, want %q", c.from, c.n, got, c.want)
		}
	}
}
