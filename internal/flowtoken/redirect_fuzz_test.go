package flowtoken

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTokenLink builds a token link on arbitrary registered URLs. Its
// reference is how the customer's page reads the link: the browser's
// URLSearchParams (WHATWG URL, application/x-www-form-urlencoded parsing),
// whose get returns a name's first value. Properties: the page reads
// exactly our token, token type and redirect type, whatever the
// registered URL's own query holds (a "token=" of its own, an escaped
// spelling of the name, a bad escape); the link keeps the registered URL's
// scheme, host and path and its fragment; and every pair of the registered
// query that is not one of ours stays, byte for byte, in its order.
func FuzzTokenLink(f *testing.F) {
	for _, target := range []string{
		"https://app.example.com/authenticate",
		"https://app.example.com/authenticate?token=stale&next=%2Fhome",
		"https://app.example.com/cb?%74oken=x&a=1;b=2&c=%zz",
		"https://app.example.com/cb?stytch_token_type=oauth&x#frag",
		"http://localhost:3000/?a+b=c&token+=1&&=&",
		"https://app.example.com/cb?Token=1&TOKEN=2&tok%65n=3#a?b#c",
	} {
		f.Add(target, "magic_links", "Zm9vYmFyYmF6", "reset_password")
	}
	f.Fuzz(func(t *testing.T, target, tokenType, token, redirectType string) {
		if !utf8.ValidString(tokenType) || !utf8.ValidString(token) || !utf8.ValidString(redirectType) {
			return // ours are ASCII; URLSearchParams would read U+FFFD (each value on its own)
		}
		extra := url.Values{"stytch_redirect_type": {redirectType}}
		link, err := TokenLink(target, tokenType, token, extra)
		if err != nil {
			if _, perr := url.Parse(target); perr == nil {
				t.Fatalf("TokenLink(%q) refused a URL Go parses: %v", target, err)
			}
			return
		}
		want := map[string]string{"stytch_token_type": tokenType, "token": token, "stytch_redirect_type": redirectType}
		for name, v := range want {
			if got, ok := searchParamsGet(link, name); !ok || got != v {
				t.Fatalf("TokenLink(%q): the page reads %s=%q (%v), want %q; link %q", target, name, got, ok, v, link)
			}
		}
		tBase, tQuery, tFrag, tHasFrag := splitURL(target)
		lBase, lQuery, lFrag, lHasFrag := splitURL(link)
		if lBase != tBase || lFrag != tFrag || lHasFrag != tHasFrag {
			t.Fatalf("TokenLink(%q) = %q: base or fragment changed", target, link)
		}
		kept := strings.Split(lQuery, "&")
		i := 0
		for _, pair := range strings.Split(tQuery, "&") {
			if tQuery == "" {
				break
			}
			if _, ours := want[formDecode(strings.SplitN(pair, "=", 2)[0])]; ours {
				continue
			}
			if i >= len(kept) || kept[i] != pair {
				t.Fatalf("TokenLink(%q) = %q: the registered pair %q is not kept in place", target, link, pair)
			}
			i++
		}
	})
}

// splitURL is a URL's text before its query, its query and its fragment,
// as a browser splits them (the first '#' ends the query).
func splitURL(u string) (base, query, fragment string, hasFragment bool) {
	rest, fragment, hasFragment := strings.Cut(u, "#")
	base, query, _ = strings.Cut(rest, "?")
	return base, query, fragment, hasFragment
}

// searchParamsGet is new URL(link).searchParams.get(name): the first
// pair of the query whose decoded name is name.
func searchParamsGet(link, name string) (string, bool) {
	_, query, _, _ := splitURL(link)
	for _, pair := range strings.Split(query, "&") {
		if pair == "" {
			continue
		}
		n, v, _ := strings.Cut(pair, "=")
		if formDecode(n) == name {
			return formDecode(v), true
		}
	}
	return "", false
}

// formDecode is the WHATWG urlencoded parser's decoding of a name or
// value: '+' is a space, "%XX" with two hex digits a byte, any other '%'
// itself, and the bytes are read as UTF-8 with U+FFFD for what is not.
func formDecode(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s)+0 && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
