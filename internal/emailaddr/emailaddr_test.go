package emailaddr

import "testing"

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		" Ada@Example.COM ":       "ada@example.com",
		"o'neil+tag@sub.corp.io":  "o'neil+tag@sub.corp.io",
		"a.b-c_d@x-y.example.org": "a.b-c_d@x-y.example.org",
		"a.b.c.d@x.test":          "a.b.c.d@x.test",
		"-.-@x.test":              "-.-@x.test",
	} {
		got, err := Normalize(in)
		if err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "plain", "a@b", "a@b.c", "a@b.c1", "a b@c.com", "a@-x.com", "a@x..com", "<a>@x.com",
		// RFC 5321 Dot-string: no leading, trailing or doubled dot unquoted.
		".ada@acme.test", "ada.@acme.test", "ada..lovelace@acme.test", ".@acme.test", "..@acme.test", `".ada"@acme.test`,
		// Non-ASCII letters that Unicode lower-casing would turn into ASCII
		// ones (the Kelvin sign into k): refused, not read as kate@acme.test.
		"\u212Aate@acme.test", "KATE@ACME.TES\u212A", "\u212A@acme.test"} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%q) accepted", bad)
		}
	}
	if Domain("a@x.com") != "x.com" {
		t.Error("Domain")
	}
}

func TestIsCommonDomain(t *testing.T) {
	for _, d := range []string{"gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com", "yahoo.com", "icloud.com",
		"me.com", "aol.com", "proton.me", "protonmail.com", "mail.ru", "qq.com", "163.com", "gmail.com.",
		"gmx.de", "gmx.net", "yandex.ru", "yandex.com.tr", "yahoo.co.jp", "hotmail.co.uk", "outlook.fr", "live.nl"} {
		if !IsCommonDomain(d) {
			t.Errorf("IsCommonDomain(%q) = false", d)
		}
	}
	for _, d := range []string{"acme.test", "example.com", "gmail.acme.test", "mail.gmail.com", "corp.gmx.de",
		"live.example.org", "yahoo.company", "gmxx.de", "notgmail.com", "yandex.co.example", ""} {
		if IsCommonDomain(d) {
			t.Errorf("IsCommonDomain(%q) = true", d)
		}
	}
}

// Equal folds ASCII case only: the Kelvin sign and the long s, which
// strings.EqualFold matches to k and s, are other characters.
func TestEqual(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"kate@acme.test", "kate@acme.test", true},
		{"Kate@ACME.test", "kate@acme.test", true},
		{"\u212Aate@acme.test", "kate@acme.test", false},
		{"\u017Fam@acme.test", "sam@acme.test", false},
		{"kate@acme.test", "kate@acme.tes", false},
		{"", "", true},
	} {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// Mailbox drops a subaddress, and dots only where the provider ignores
// them; a local part that is all tag or all dots stays as it is.
func TestMailbox(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ada@acme.test":            "ada@acme.test",
		"Ada+Login@Acme.test":      "ada@acme.test",
		"a.da+x+y@acme.test":       "a.da@acme.test",
		"A.Da.Love+x@Gmail.com":    "adalove@gmail.com",
		"a.d.a@googlemail.com":     "ada@googlemail.com",
		"+ada@acme.test":           "+ada@acme.test",
		"a.da@gmail.com.evil.test": "a.da@gmail.com.evil.test",
	} {
		if got := Mailbox(in); got != want {
			t.Errorf("Mailbox(%q) = %q, want %q", in, got, want)
		}
	}
}
