package idp_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

// A code_verifier is 43 to 128 characters of [A-Za-z0-9-._~] (RFC 7636
// 4.1): the token endpoint refuses any other as invalid_request, even one
// whose S256 is the code's challenge, without spending the code, which a
// well-formed verifier then redeems. Both ends of the length and every
// allowed character pass.
func TestCodeVerifierMustHaveRFC7636Shape(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		pub, _ := f.client("third_party_public", nil)
		code := func(v string) string {
			t.Helper()
			req := authReq(pub, "openid")
			req["code_challenge"] = flowtoken.S256(v)
			_, back := f.authorize(req, true)
			return back.Get("code")
		}
		for name, v := range map[string]string{
			"42 characters":  strings.Repeat("a", 42),
			"129 characters": strings.Repeat("a", 129),
			"a space":        strings.Repeat("a", 42) + " ",
			"a plus":         strings.Repeat("a", 42) + "+",
			"non-ASCII":      strings.Repeat("a", 41) + "é",
		} {
			c := code(v)
			oauthErr(t, f.exchange(pub, "", c, v), 400, "invalid_request")
			if r := f.exchange(pub, "", c, v); r.Body["error"] != "invalid_request" {
				t.Fatalf("%s: the refused verifier spent the code: %s", name, r.Raw)
			}
		}
		for _, v := range []string{strings.Repeat("a", 43), strings.Repeat("Zz09-._~", 16), verifier} {
			apptest.Want(t, f.exchange(pub, "", code(v), v), 200, "")
		}
	})
}

// code_challenge_method=plain is refused at authorize on the backend face
// as on the SDK face (authorize_errors_test.go): invalid_request, sent to
// the client by redirect with state, and no code.
func TestPlainChallengeMethodIsRefusedOnTheBackendFace(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("third_party", nil)
		req := authReq(id, "openid")
		req["code_challenge_method"], req["code_challenge"] = "plain", verifier[:43]
		req["organization_id"], req["member_id"], req["consent_granted"] = f.org, f.member, true
		r := e.Backend("POST", "/v1/b2b/idp/oauth/authorize", req)
		if q := redirectQuery(t, r, r.Body); q.Get("error") != "invalid_request" || q.Get("state") != "st-1" || q.Get("code") != "" {
			t.Fatalf("plain on the backend face: %s", r.Raw)
		}
	})
}
