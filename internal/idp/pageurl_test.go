package idp_test

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/idp"
)

// The authorization page is the authorization endpoint discovery
// advertises, where a connected app sends its users to log in and
// consent: like every other URL the CLI takes, plain http is refused
// except to a loopback host (a page on the operator's own machine).
func TestAuthorizationPageNeedsHTTPS(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	ctx, id := context.Background(), e.Project.Project.ID
	for _, bad := range []string{"http://evil.example.com/auth", "http://10.0.0.1/authorize", "HTTP://shop.test/a"} {
		if err := idp.SetAuthorizationURL(ctx, e.App.DB, e.Clock, id, bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if u, _ := idp.AuthorizationURLOf(ctx, e.App.DB, id); u != "" {
		t.Errorf("a refused URL was stored: %q", u)
	}
	for _, good := range []string{"https://shop.test/oauth/authorize", "http://localhost:3000/authorize",
		"http://127.0.0.1/authorize", "http://[::1]:8080/authorize"} {
		if err := idp.SetAuthorizationURL(ctx, e.App.DB, e.Clock, id, good); err != nil {
			t.Errorf("%s refused: %v", good, err)
		}
	}
}
