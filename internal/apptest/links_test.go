package apptest_test

import (
	"fmt"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// fatalTB records the first Fatalf and ends its goroutine, as testing.T
// does, so a helper's refusals can be checked.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// linkToken runs LinkToken on a fatalTB and returns the token or the
// refusal.
func linkToken(link, page, tokenType string) (token, refused string) {
	f := &fatalTB{}
	defer func() {
		if r := recover(); r != nil && r != f {
			panic(r)
		}
		refused = f.msg
	}()
	return apptest.LinkToken(f, link, page, tokenType), ""
}

// LinkToken takes a token only from a link to the page with the token
// type; each other link is refused.
func TestLinkTokenChecksTheLink(t *testing.T) {
	const page = "https://app.test/auth"
	if tok, refused := linkToken(page+"?stytch_token_type=discovery&token=abc", page, "discovery"); tok != "abc" || refused != "" {
		t.Fatalf("good link: token %q, refused %q", tok, refused)
	}
	if tok, refused := linkToken("https://other.test/x?stytch_token_type=sso&token=abc", "", "sso"); tok != "abc" || refused != "" {
		t.Fatalf("no page to check: token %q, refused %q", tok, refused)
	}
	for name, link := range map[string]string{
		"other page":       "https://app.test/other?stytch_token_type=discovery&token=abc",
		"other host":       "https://evil.test/auth?stytch_token_type=discovery&token=abc",
		"other token type": page + "?stytch_token_type=multi_tenant_magic_links&token=abc",
		"no token":         page + "?stytch_token_type=discovery",
		"unparsable":       "https://app.test/auth?%zz\x7f",
	} {
		if tok, refused := linkToken(link, page, "discovery"); refused == "" {
			t.Errorf("%s: took token %q from %q", name, tok, link)
		}
	}
}
