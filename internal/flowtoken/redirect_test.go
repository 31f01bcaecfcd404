package flowtoken_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/flowtoken"
)

// The emailed link lands on the registered URL: its query is kept byte
// for byte (pairs Go's parser refuses included, in their order) and the
// registered URL is a prefix of the link, whose token parameters a
// browser's URLSearchParams (split on '&' only, lenient with '%') reads.
func TestTokenLinkKeepsTheRegisteredQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ registered, want string }{
		{"https://app.test/callback?tenant=acme;region=eu",
			"https://app.test/callback?tenant=acme;region=eu&stytch_token_type=multi_tenant_magic_links&token=tok_1"},
		{"https://app.test/callback?next=%2Fhome%zz&tenant=acme",
			"https://app.test/callback?next=%2Fhome%zz&tenant=acme&stytch_token_type=multi_tenant_magic_links&token=tok_1"},
		{"https://app.test/callback?z=1&a=2", "https://app.test/callback?z=1&a=2&stytch_token_type=multi_tenant_magic_links&token=tok_1"},
		{"https://app.test/callback", "https://app.test/callback?stytch_token_type=multi_tenant_magic_links&token=tok_1"},
		{"https://app.test/callback?", "https://app.test/callback?stytch_token_type=multi_tenant_magic_links&token=tok_1"},
		{"https://app.test/callback?a=1#/login", "https://app.test/callback?a=1&stytch_token_type=multi_tenant_magic_links&token=tok_1#/login"},
		// A registered token parameter (in any spelling a browser decodes
		// to the same name) would shadow the link's: it is taken out.
		{"https://app.test/callback?tok%65n=old&a=1;b&stytch_token_type=x",
			"https://app.test/callback?a=1;b&stytch_token_type=multi_tenant_magic_links&token=tok_1"},
	} {
		got, err := flowtoken.TokenLink(tc.registered, "multi_tenant_magic_links", "tok_1", nil)
		if err != nil || got != tc.want {
			t.Errorf("TokenLink(%q) = %q (%v), want %q", tc.registered, got, err, tc.want)
			continue
		}
		if reg, _, _ := strings.Cut(tc.registered, "#"); !strings.Contains(tc.registered, "token") && !strings.HasPrefix(got, reg) {
			t.Errorf("the link %q does not start with the registered %q", got, reg)
		}
		// What the widget does: read the last pairs as URLSearchParams
		// would. Go's parser agrees on them, whatever it makes of the
		// registered pairs before.
		u, _ := url.Parse(got)
		q, _ := url.ParseQuery(u.RawQuery)
		if q.Get("token") != "tok_1" || q.Get("stytch_token_type") != "multi_tenant_magic_links" || len(q["token"]) != 1 {
			t.Errorf("%q: token parameters read as %v", got, q)
		}
	}
	// Without parameters to add, the registered URL is returned as it is.
	for _, reg := range []string{"https://app.test/out?tenant=acme;region=eu", "https://app.test/out?"} {
		if got, err := flowtoken.WithQuery(reg, nil); err != nil || got != reg {
			t.Errorf("WithQuery(%q, nil) = %q (%v)", reg, got, err)
		}
	}
}
