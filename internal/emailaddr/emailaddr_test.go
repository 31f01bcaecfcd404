package emailaddr

import "testing"

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		" Ada@Example.COM ":       "ada@example.com",
		"o'neil+tag@sub.corp.io":  "o'neil+tag@sub.corp.io",
		"a.b-c_d@x-y.example.org": "a.b-c_d@x-y.example.org",
	} {
		got, err := Normalize(in)
		if err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "plain", "a@b", "a@b.c", "a@b.c1", "a b@c.com", "a@-x.com", "a@x..com", "<a>@x.com"} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%q) accepted", bad)
		}
	}
	if Domain("a@x.com") != "x.com" {
		t.Error("Domain")
	}
}
