package apptest

import "net/http"

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
