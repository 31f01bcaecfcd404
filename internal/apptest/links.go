package apptest

import (
	"net/url"
	"testing"
)

// LinkParams checks a link Latchkey handed out with a one-time token (in a
// mail, or as the Location of a redirect back to the customer's page) and
// returns its query. It fails the test unless the link parses, goes to
// page (scheme, host and path; skipped when page is empty), carries
// tokenType as stytch_token_type (skipped when empty) and has a token.
// Every test that redeems a mailed or redirected token reads it this way,
// so a link that drifts from the wire format fails them all alike.
func LinkParams(t testing.TB, link, page, tokenType string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatalf("apptest: link %q: %v", link, err)
	}
	if page != "" && u.Scheme+"://"+u.Host+u.Path != page {
		t.Fatalf("apptest: link %q does not go to the page %s", link, page)
	}
	q := u.Query()
	if tokenType != "" && q.Get("stytch_token_type") != tokenType {
		t.Fatalf("apptest: link %q: want stytch_token_type %s", link, tokenType)
	}
	if q.Get("token") == "" {
		t.Fatalf("apptest: link %q has no token", link)
	}
	return q
}

// LinkToken is LinkParams' token.
func LinkToken(t testing.TB, link, page, tokenType string) string {
	t.Helper()
	return LinkParams(t, link, page, tokenType).Get("token")
}
