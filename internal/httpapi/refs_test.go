package httpapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type refsInner struct {
	MemberID string `json:"member_id"`
	Name     string `json:"name"`
}

type refsCheck struct {
	OrganizationID string `json:"organization_id"`
}

// Decode hands the route's RefResolver the body's top-level
// organization_id and member_id (promoted ones included, nested ones
// not), and the handler sees what it wrote.
func TestDecodeResolvesTopLevelRefs(t *testing.T) {
	aliases := map[string]string{"acme": "organization-test-1", "emp-1": "member-test-1"}
	calls := 0
	resolve := func(r *http.Request, org, member *string) error {
		calls++
		for _, p := range []*string{org, member} {
			if p != nil && aliases[*p] != "" {
				*p = aliases[*p]
			}
		}
		return nil
	}
	decode := func(body string, dst any) {
		t.Helper()
		r := SetRefResolver(httptest.NewRequest(http.MethodPost, "http://x/", strings.NewReader(body)), resolve)
		if err := Decode(r, dst); err != nil {
			t.Fatalf("Decode(%s): %v", body, err)
		}
	}

	var flat struct {
		OrganizationID string `json:"organization_id,omitempty"`
		MemberID       string `json:"member_id"`
	}
	decode(`{"organization_id":"acme","member_id":"emp-1"}`, &flat)
	if flat.OrganizationID != "organization-test-1" || flat.MemberID != "member-test-1" {
		t.Errorf("flat: %+v", flat)
	}

	var embedded struct {
		refsInner
		Check *refsCheck `json:"authorization_check"`
	}
	decode(`{"member_id":"emp-1","authorization_check":{"organization_id":"acme"}}`, &embedded)
	if embedded.MemberID != "member-test-1" || embedded.Check.OrganizationID != "acme" {
		t.Errorf("embedded member resolved, nested organization left: %+v %+v", embedded, embedded.Check)
	}

	// Through an embedded pointer (nil when the body has none of its
	// fields) nothing is read.
	var viaPointer struct {
		*refsInner
		OrganizationID string `json:"organization_id"`
	}
	decode(`{"organization_id":"acme"}`, &viaPointer)
	if viaPointer.OrganizationID != "organization-test-1" {
		t.Errorf("beside an embedded pointer: %+v", viaPointer)
	}

	// Without references, or with empty ones, the resolver is not called.
	before := calls
	var none struct {
		Token string `json:"session_token"`
	}
	decode(`{"session_token":"t"}`, &none)
	decode(`{"organization_id":"","member_id":""}`, &flat)
	if calls != before {
		t.Errorf("resolver called %d times for bodies without references", calls-before)
	}
}

func TestDecodeReturnsTheResolversError(t *testing.T) {
	boom := errors.New("boom")
	r := SetRefResolver(httptest.NewRequest(http.MethodPost, "http://x/", strings.NewReader(`{"organization_id":"acme"}`)),
		func(*http.Request, *string, *string) error { return boom })
	var dst struct {
		OrganizationID string `json:"organization_id"`
	}
	if err := Decode(r, &dst); !errors.Is(err, boom) {
		t.Fatalf("Decode: %v, want the resolver's error", err)
	}
}

// A request without a resolver decodes as before.
func TestDecodeWithoutResolverLeavesRefs(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "http://x/", strings.NewReader(`{"organization_id":"acme"}`))
	var dst struct {
		OrganizationID string `json:"organization_id"`
	}
	if err := Decode(r, &dst); err != nil || dst.OrganizationID != "acme" {
		t.Fatalf("Decode: %v %+v", err, dst)
	}
}
