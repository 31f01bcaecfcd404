package devmode_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// DNS rebinding: the dev routes (the mailbox with every login code, the
// mock identity providers) answer only a Host naming this server, its
// base URL's host and port or a loopback name or address; a page on a
// name pointed at 127.0.0.1 sends its own name and is refused. Routes
// outside /dev answer whatever the Host.
func TestDevRoutesAnswerOnlyTheirOwnHost(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		h := e.App.Handler()
		send := func(target, host string) (int, string) {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			req.Host = host
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var body struct {
				ErrorType string `json:"error_type"`
			}
			_ = json.Unmarshal(rec.Body.Bytes(), &body)
			return rec.Code, body.ErrorType
		}
		for _, tc := range []struct {
			base, target, host string
			ok                 bool
		}{
			{"http://localhost:8080", "/dev/mailbox", "attacker.example:8080", false},
			{"http://localhost:8080", "/dev/mailbox/messages", "attacker.example", false},
			{"http://localhost:8080", "/dev/mailbox/messages", "localhost.attacker.example:8080", false},
			{"http://localhost:8080", "/dev/oidc/jwks", "attacker.example:8080", false},
			{"http://localhost:8080", "/dev/oauth/google/jwks", "attacker.example:8080", false},
			{"http://localhost:8080", "/dev/saml/metadata", "attacker.example:8080", false},
			{"http://localhost:8080", "/dev/../dev/mailbox/messages", "attacker.example:8080", false},
			{"http://localhost:8080", "/dev/mailbox", "localhost:8080", true},
			{"http://localhost:8080", "/dev/mailbox/messages", "LOCALHOST:9000", true},
			{"http://localhost:8080", "/dev/mailbox/messages", "127.0.0.1:8080", true},
			{"http://localhost:8080", "/dev/mailbox/messages", "[::1]:8080", true},
			{"http://localhost:8080", "/dev/mailbox/messages", "localhost", true},
			{"http://localhost:8080", "/dev/oidc/jwks", "127.0.0.1:8080", true},
			{"http://localhost:8080", "/healthz", "attacker.example:8080", true},
			{"http://devbox.test:8080", "/dev/mailbox/messages", "devbox.test:8080", true},
			{"http://devbox.test:8080", "/dev/mailbox/messages", "DevBox.Test:8080", true},
			{"http://devbox.test:8080", "/dev/mailbox/messages", "devbox.test:9090", false},
			{"http://devbox.test:8080", "/dev/mailbox/messages", "devbox.test", false},
			{"http://devbox.test:8080", "/dev/mailbox/messages", "other.test:8080", false},
			{"https://devbox.test", "/dev/mailbox/messages", "devbox.test", true},
			{"https://devbox.test", "/dev/mailbox/messages", "devbox.test:443", true},
			{"https://devbox.test", "/dev/mailbox/messages", "devbox.test:8443", false},
		} {
			e.App.Config.BaseURL = tc.base
			status, errType := send(tc.target, tc.host)
			if ok := status == http.StatusOK; ok != tc.ok || !ok && (status != http.StatusBadRequest || errType != "invalid_request") {
				t.Errorf("base %s, GET %s with Host %s: %d %s, want answered %t", tc.base, tc.target, tc.host, status, errType, tc.ok)
			}
		}
	})
}
