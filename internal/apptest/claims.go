package apptest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// serverClaims are the session JWT's claims this server sets itself: the
// registered ones and its two https://stytch.com/ claims.
var serverClaims = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti",
	"https://stytch.com/session", "https://stytch.com/organization"}

// CustomClaims reads the custom claims of a session answer (a backend
// body, or an SDK answer's Data()): its member_session.custom_claims, and
// the top-level claims of its session_jwt other than the server's own.
func CustomClaims(t testing.TB, body map[string]any) (answer, inJWT map[string]any) {
	t.Helper()
	ms, _ := body["member_session"].(map[string]any)
	answer, _ = ms["custom_claims"].(map[string]any)
	token, _ := body["session_jwt"].(string)
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("apptest: no session JWT in %v", body)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("apptest: JWT payload: %v", err)
	}
	if err := json.Unmarshal(raw, &inJWT); err != nil {
		t.Fatalf("apptest: JWT payload: %v", err)
	}
	for _, k := range serverClaims {
		delete(inJWT, k)
	}
	return answer, inJWT
}

// WantLoginClaims fails unless the session answer body (as CustomClaims
// reads it) carries exactly want as custom claims, in the answer and in
// its JWT, and a later backend check of its session_token shows them too:
// the claims were stored with the session, not only answered.
func (e *Env) WantLoginClaims(t *testing.T, body map[string]any, want map[string]any) {
	t.Helper()
	answer, inJWT := CustomClaims(t, body)
	if !reflect.DeepEqual(answer, want) || !reflect.DeepEqual(inJWT, want) {
		t.Fatalf("custom claims: answer %v, JWT %v; want %v", answer, inJWT, want)
	}
	r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": body["session_token"]})
	Want(t, r, http.StatusOK, "")
	answer, inJWT = CustomClaims(t, r.Body)
	if !reflect.DeepEqual(answer, want) || !reflect.DeepEqual(inJWT, want) {
		t.Fatalf("custom claims on a later check: answer %v, JWT %v; want %v", answer, inJWT, want)
	}
}
