package apptest

import (
	"net/http"
	"strings"
	"testing"
)

// Secret fields are found nested in JSON, in forms, in a redirect's query
// and fragment and in credentials headers; public values are not taken.
func TestSecretSetRecordsEveryCarrier(t *testing.T) {
	t.Parallel()
	s := newSecretSet()
	s.markPublic("public-token-test-abc")
	s.addJSON([]byte(`{"member_id":"member-test-123456","session_token":"tok-session-aaaa",
		"totp":{"secret":"TOTPSECRETBASE32","qr_code":"data:image/png;base64,xyz","recovery_codes":["rc-1111-2222","rc-3333-4444"]},
		"client":{"client_secret":"cs-live-secret","client_id":"client-id-visible"},
		"status_code":200,"public_token":"public-token-test-abc","code":"654321",
		"saml_encryption_private_keys":[{"private_key_id":"saml-encryption-key-1","created_at":"2026-03-01T09:00:00Z",
		"private_key":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"}]}`))
	s.addJSON([]byte("grant_type=authorization_code&code=auth-code-xyz&code_verifier=verifier-xyz&client_id=c1"))
	s.addURL("http://app.customer.test/login?stytch_token_type=magic_links&token=magic-token-1#access_token=frag-access-1")
	s.addHeader(http.Header{"Authorization": {"Bearer scim-bearer-1"},
		"X-Stytch-Member-Session": {"hdr-session-1"}, "Set-Cookie": {"flow=cookie-value-1; Path=/"}})
	h := http.Header{}
	(&http.Request{Header: h}).SetBasicAuth("project-test-1", "project-secret-1")
	s.addAuthorization(h.Get("Authorization"))
	s.add("basic password", "public-token-test-abc")

	got := s.snapshot()
	for _, want := range []string{"tok-session-aaaa", "TOTPSECRETBASE32", "rc-1111-2222", "rc-3333-4444",
		"cs-live-secret", "654321", "auth-code-xyz", "verifier-xyz", "magic-token-1", "frag-access-1",
		"scim-bearer-1", "hdr-session-1", "cookie-value-1", "project-secret-1", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"} {
		if _, ok := got[want]; !ok {
			t.Errorf("secret %q not recorded", want)
		}
	}
	for _, not := range []string{"member-test-123456", "public-token-test-abc", "client-id-visible",
		"data:image/png;base64,xyz", "magic_links", "project-test-1", "authorization_code", "saml-encryption-key-1",
		"2026-03-01T09:00:00Z"} {
		if _, ok := got[not]; ok {
			t.Errorf("public value %q recorded as a secret", not)
		}
	}
}

// A secret is found as is and URL-escaped; a 6-digit code and a word only
// as a whole word; short values never; the report masks the value.
func TestFindLeaks(t *testing.T) {
	t.Parallel()
	secrets := map[string]string{"tok-session-aaaa": "session_token", "pa ss/word+1": "password",
		"123456": "code", "234567": "code", "345678": "code", "456789": "code", "567890": "code", "abc12": "code",
		"password": "password", "hunter": "password"}
	log := `time=2026-03-01T09:00:00.123456Z level=DEBUG msg=http duration=1.234567ms request_id=req-345678x
path=/v1/x?next=pa+ss%2Fword%2B1 id=member-test-456789-a note=abc12 path=/sdk/v1/b2b/passwords/strength_check
msg="login as hunter failed"
msg="bad code" cause="otp 567890. did not match" token=tok-session-aaaa`
	leaks := findLeaks(log, secrets)
	want := []string{`field "code", value "56"… (6 chars)`, `field "password", value "hu"… (6 chars)`,
		`field "password", value "pa s"… (12 chars)`,
		`field "session_token", value "tok-"… (16 chars)`}
	if strings.Join(leaks, "\n") != strings.Join(want, "\n") {
		t.Fatalf("leaks:\n%s\nwant:\n%s", strings.Join(leaks, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range leaks {
		if strings.Contains(l, "tok-session-aaaa") || strings.Contains(l, "567890") {
			t.Fatalf("report prints the secret whole: %s", l)
		}
	}
}

// A secret is found at the log's very start and end, and where it is
// the whole log; a prefix of a secret is not the secret.
func TestFindLeaksAtTheEdges(t *testing.T) {
	t.Parallel()
	secrets := map[string]string{"123456": "code", "tok-edge-1": "session_token", "tok-edge-2-long": "session_token"}
	for log, want := range map[string]int{"123456": 1, "tok-edge-1 x": 1, "x=tok-edge-1": 1, "tok-edge-2-lon": 0,
		"123456 tok-edge-2-long": 2, "tok-edge": 0, "": 0} {
		if got := findLeaks(log, secrets); len(got) != want {
			t.Errorf("%q: %d leaks %v, want %d", log, len(got), got, want)
		}
	}
}

// A pair's sets merge: each keeps the other's secrets, and a value public
// in either stays out.
func TestSecretSetMerge(t *testing.T) {
	t.Parallel()
	a, b := newSecretSet(), newSecretSet()
	a.add("session_token", "tok-from-a-1")
	b.add("session_token", "tok-from-b-1")
	b.markPublic("public-token-b")
	a.add("basic password", "public-token-b")
	a.merge(b)
	got := a.snapshot()
	if _, ok := got["tok-from-a-1"]; !ok {
		t.Error("lost its own secret")
	}
	if _, ok := got["tok-from-b-1"]; !ok {
		t.Error("did not take the other's secret")
	}
	a.add("basic password", "public-token-b")
	if _, ok := a.snapshot()["public-token-b"]; ok {
		t.Error("a value public in the other is recorded")
	}
}
