package apptest

import (
	"net/http"
	"slices"
	"testing"
)

// LoginByEmailOTP logs a member of orgID in by emailed code through the
// backend face and returns the session token and JWT.
func (e *Env) LoginByEmailOTP(orgID, email string) (token, jwt string) {
	e.tb().Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup",
		map[string]any{"organization_id": orgID, "email_address": email})
	if r.Status != 200 {
		e.tb().Fatalf("apptest: send code: %d %s", r.Status, r.Raw)
	}
	_, codes := e.LastMail(email)
	if len(codes) == 0 {
		e.tb().Fatalf("apptest: no code mailed to %s", email)
	}
	r = e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate",
		map[string]any{"organization_id": orgID, "email_address": email, "code": codes[0]})
	if r.Status != 200 {
		e.tb().Fatalf("apptest: authenticate code: %d %s", r.Status, r.Raw)
	}
	token, _ = r.Body["session_token"].(string)
	jwt, _ = r.Body["session_jwt"].(string)
	return token, jwt
}

// WantJoined fails unless the backend answer r is a new session that
// joined the held session (session.Held): its factors are exactly types,
// in order, and the held session has ended.
func (e *Env) WantJoined(t *testing.T, r Resp, held string, types ...string) {
	t.Helper()
	Want(t, r, http.StatusOK, "")
	if got := FactorTypes(r); !slices.Equal(got, types) {
		t.Errorf("factors %v, want %v", got, types)
	}
	if tok, _ := r.Body["session_token"].(string); tok == "" || tok == held {
		t.Errorf("session_token %q: want a new one", tok)
	}
	Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": held}),
		http.StatusNotFound, "session_not_found")
}

// FactorTypes lists the types of the session factors in a backend
// answer, in order.
func FactorTypes(r Resp) []string {
	ms, _ := r.Body["member_session"].(map[string]any)
	fs, _ := ms["authentication_factors"].([]any)
	var out []string
	for _, f := range fs {
		t, _ := f.(map[string]any)["type"].(string)
		out = append(out, t)
	}
	return out
}
