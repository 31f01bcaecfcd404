package httpapi

import (
	"net/http/httptest"
	"testing"
)

// The BasicAuth memo lives in the state every copy of a request shares,
// yet each copy reads its own credentials: a clone given other credentials
// (or none) must not be judged by the ones parsed from the original.
func TestBasicAuthReadsEachCopysOwnCredentials(t *testing.T) {
	r := httptest.NewRequest("POST", "/sdk/v1/events", nil)
	r, _ = withState(r)
	r.SetBasicAuth("public-token-test-b", "public-token-test-b")
	if u, _, ok := BasicAuth(r); !ok || u != "public-token-test-b" {
		t.Fatalf("original: %q %v", u, ok)
	}
	clone := r.Clone(r.Context())
	clone.SetBasicAuth("public-token-test-a", "secret")
	if u, p, ok := BasicAuth(clone); !ok || u != "public-token-test-a" || p != "secret" {
		t.Fatalf("clone with other credentials read as %q:%q %v", u, p, ok)
	}
	if u, _, ok := BasicAuth(r); !ok || u != "public-token-test-b" {
		t.Fatalf("original after the clone: %q %v", u, ok)
	}
	bare := r.Clone(r.Context())
	bare.Header.Del("Authorization")
	if u, _, ok := BasicAuth(bare); ok {
		t.Fatalf("clone without credentials read as %q", u)
	}
}
