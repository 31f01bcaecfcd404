package apptest

import (
	"maps"
	"net/http"

	"github.com/latchkey/latchkey/internal/password/pwhash"
)

// StrongPassword passes zxcvbn and LUDS and is on no breach list.
const StrongPassword = "Vellum-Otter-Quarry-83"

// WeakPassword is on no breach list but scores low.
const WeakPassword = "moosemoose9"

// SetPassword gives an address a password through the backend import (at
// the tests' tiny argon2 cost).
func (e *Env) SetPassword(org, email, pw string) {
	e.tb().Helper()
	h, err := pwhash.Hash(e.tb().Context(), pw, pwhash.Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1})
	if err != nil {
		e.tb().Fatal(err)
	}
	r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"email_address": email,
		"organization_id": org, "hash": h, "hash_type": "argon_2id"})
	if r.Status != 200 {
		e.tb().Fatalf("apptest: migrate: %d %s", r.Status, r.Raw)
	}
}

// PasswordLogin logs in by password for an hour's session.
func (e *Env) PasswordLogin(org, email, pw string) Resp {
	e.tb().Helper()
	return e.SDK(http.MethodPost, "/b2b/passwords/authenticate", map[string]any{"organization_id": org, "email_address": email,
		"password": pw, "session_duration_minutes": 60}, "")
}

// ResetStart asks for a password reset mail; extra adds or overrides fields.
func (e *Env) ResetStart(org, email string, extra map[string]any) Resp {
	e.tb().Helper()
	body := map[string]any{"organization_id": org, "email_address": email}
	maps.Copy(body, extra)
	return e.SDK(http.MethodPost, "/b2b/passwords/email/reset/start", body, "")
}

// ResetWith resets a password with a mailed token.
func (e *Env) ResetWith(token, pw string, extra map[string]any) Resp {
	e.tb().Helper()
	body := map[string]any{"password_reset_token": token, "password": pw, "session_duration_minutes": 60}
	maps.Copy(body, extra)
	return e.SDK(http.MethodPost, "/b2b/passwords/email/reset", body, "")
}

// ResetLink returns the token of the newest link mailed to an address,
// after checking it goes to the registered page with tokenType and the
// reset_password redirect type; "" when the mail has no link.
func (e *Env) ResetLink(to, tokenType string) string {
	e.tb().Helper()
	links, _ := e.LastMail(to)
	if len(links) == 0 {
		return ""
	}
	q := LinkParams(e.tb(), links[0], Page, tokenType)
	if q.Get("stytch_redirect_type") != "reset_password" {
		e.tb().Fatalf("apptest: link %q: want redirect type reset_password", links[0])
	}
	return q.Get("token")
}
