package app_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Each route table says which of its routes are logins or factor changes
// (httpapi.Route.Audit), and the root records only those. A method's
// authenticate routes are its logins, so a route table that forgets to say
// so fails here rather than leaving the method's logins out of the audit
// log; the session check is not a login.
func TestAuthenticateRoutesAreAuditedAsLogins(t *testing.T) {
	e := apptest.New(t, storetest.SQLite(t), nil)
	seen := 0
	for _, ri := range e.App.RouteTable() {
		verb, path, _ := strings.Cut(ri.Pattern, " ")
		if ri.Face == httpapi.Public || verb != "POST" || !strings.HasSuffix(path, "/authenticate") ||
			strings.HasSuffix(path, "/b2b/sessions/authenticate") {
			continue
		}
		seen++
		if ri.Audit.Login == "" || ri.Audit.Factor != "" {
			t.Errorf("%s: audit %+v, want a login method", ri.Pattern, ri.Audit)
		}
	}
	if seen < 20 {
		t.Fatalf("only %d authenticate routes in the table", seen)
	}
}
