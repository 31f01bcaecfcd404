package sso_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// TestOIDCIssuerKeepsTheDocumentsSpelling: discovery accepts a document
// whose issuer differs from the one typed by a trailing slash, and the
// connection then stores the document's spelling: the provider stamps its
// ID tokens with that one, and an ID token's iss must equal the stored
// issuer exactly, so the spelling typed would make a connection that is
// active and refuses every login (oidc_invalid_id_token). Both ways: a
// slash typed that the document lacks, and one the document has that was
// not typed.
func TestOIDCIssuerKeepsTheDocumentsSpelling(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		// The provider stamps its tokens with the real clock.
		setClock(e, time.Now())
		for i, tc := range []struct {
			name             string
			typed, published func(op *signingOP) string
		}{
			{"slash typed, not published",
				func(op *signingOP) string { return op.issuer() + "/" },
				func(op *signingOP) string { return op.issuer() }},
			{"slash published, not typed",
				func(op *signingOP) string { return op.issuer() },
				func(op *signingOP) string { return op.issuer() + "/" }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				op := newSigningOP(t, "RS256", "RS256")
				op.published = tc.published(op)
				orgID, connID, warning := connectOIDC(t, e, "issuer-"+string(rune('a'+i)), op,
					map[string]any{"issuer": tc.typed(op), "client_id": op.clientID, "client_secret": op.secret})
				if warning != "" {
					t.Fatalf("warning: %s", warning)
				}
				r := e.Backend(http.MethodGet, "/v1/b2b/sso/"+orgID, nil)
				apptest.Want(t, r, 200, "")
				if got := r.Body["oidc_connections"].([]any)[0].(map[string]any)["issuer"]; got != op.published {
					t.Fatalf("stored issuer %v, want the document's %q", got, op.published)
				}
				token := tokenFrom(t, loginOIDC(t, e, connID))
				apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, ""), 200, "")
			})
		}
	})
}
