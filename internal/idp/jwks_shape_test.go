package idp_test

import (
	"encoding/json"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The issuer's jwks_uri publishes the session JWKS's keys in the same
// shape (key_ops, x5c and its thumbprint included), so a verifier that
// reads one of those fields finds it whichever URL it was given.
func TestIssuerJWKSIsTheSessionKeySet(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		pid := e.Project.Project.ID
		issuer := e.Get("/v1/public/" + pid + "/.well-known/jwks.json")
		apptest.Want(t, issuer, 200, "")
		sessions := e.Get("/v1/b2b/sessions/jwks/" + pid)
		apptest.Want(t, sessions, 200, "")
		got, want := keysOf(t, issuer), keysOf(t, sessions)
		if len(want) == 0 || string(got) != string(want) {
			t.Fatalf("issuer keys\n%s\nsession keys\n%s", got, want)
		}
		var keys []map[string]any
		if err := json.Unmarshal(got, &keys); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k["x5c"] == nil || k["key_ops"] == nil || k["kid"] == "" {
				t.Fatalf("key without x5c, key_ops or kid: %v", k)
			}
		}
	})
}

// keysOf is r's "keys" member as sent.
func keysOf(t *testing.T, r apptest.Resp) json.RawMessage {
	t.Helper()
	var set struct {
		Keys json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(r.Raw, &set); err != nil {
		t.Fatalf("%v: %s", err, r.Raw)
	}
	return set.Keys
}
