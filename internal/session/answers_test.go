package session_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

var requestID = regexp.MustCompile(`"request_id":"[^"]*"`)

// Answers served again from memory are exactly what the first check of the
// session answered (but for the request id), on both faces and for both
// credentials; each carries the token presented with it, and an access
// recorded a minute later shows in the next answer.
func TestRepeatedChecksAnswerTheSame(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, _ := e.Login(org, "ada@acme.test")
		token2, _, _ := e.Login(org, "grace@acme.test")
		body := func(r apptest.Resp) string {
			t.Helper()
			apptest.Want(t, r, 200, "")
			if ids := requestID.FindAllString(string(r.Raw), -1); len(ids) != 1 || ids[0] == `"request_id":""` {
				t.Fatalf("request ids %q in %s", ids, r.Raw)
			}
			return requestID.ReplaceAllString(string(r.Raw), "")
		}
		calls := map[string]func() apptest.Resp{
			"backend token": func() apptest.Resp { return check(e, token, "") },
			"backend jwt":   func() apptest.Resp { return check(e, "", jwt) },
			"sdk token": func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token)
			},
			"other session": func() apptest.Resp { return check(e, token2, "") },
		}
		firsts := map[string]string{}
		for name, call := range calls {
			firsts[name] = body(call())
		}
		for range 3 {
			for name, call := range calls {
				if got := body(call()); got != firsts[name] {
					t.Fatalf("%s answered\n%s\nafter\n%s", name, got, firsts[name])
				}
			}
		}
		if !strings.Contains(firsts["backend token"], `"session_token":"`+token+`"`) ||
			!strings.Contains(firsts["other session"], `"session_token":"`+token2+`"`) ||
			!strings.Contains(firsts["backend jwt"], `"session_token":""`) {
			t.Fatal("an answer does not carry the token it was asked with")
		}
		e.Clock.Advance(2 * time.Minute)
		at := `"last_accessed_at":"` + e.Clock.Now().UTC().Format(time.RFC3339)
		for name, call := range calls {
			if got := body(call()); !strings.Contains(got, at) {
				t.Fatalf("%s after a minute: %s", name, got)
			}
		}
	})
}
