package app_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// Each route table says which of its routes are logins or factor changes
// (httpapi.Route.Audit), and the root records only those. Every route that
// can answer a session (or an intermediate session) is a login, so a route
// table that forgets to say so fails here rather than leaving those logins
// out of the audit log. Which routes can is read from the browser SDK's
// declared answer types (apptest.Allowlist.AnswersSession, generated from
// the SDK, not a list kept here), for the SDK route and for its backend
// twin (the same call under /v1/); backend routes without an SDK twin are
// held to their path: a method's authenticate route is its login. The
// session check (sessions/authenticate) answers the session it was given
// and is not a login.
func TestRoutesAnsweringASessionAreAuditedAsLogins(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	wire := apptest.Wire()
	seen, byWire := 0, 0
	for _, ri := range e.App.RouteTable() {
		verb, path, _ := strings.Cut(ri.Pattern, " ")
		if ri.Face == httpapi.Public || strings.HasSuffix(path, "/b2b/sessions/authenticate") {
			continue
		}
		sdkPath := path
		if ri.Face == httpapi.Backend {
			sdkPath = "/sdk" + path
		}
		answers := wire.AnswersSession(verb, sdkPath)
		if !answers && !(verb == "POST" && strings.HasSuffix(path, "/authenticate")) {
			continue
		}
		seen++
		if answers {
			byWire++
		}
		if ri.Audit.Login == "" || ri.Audit.Factor != "" {
			t.Errorf("%s: audit %+v, want a login method", ri.Pattern, ri.Audit)
		}
	}
	if seen < 40 || byWire < 40 {
		t.Fatalf("only %d routes that answer a session in the table (%d by the SDK's declared answers)", seen, byWire)
	}
}
