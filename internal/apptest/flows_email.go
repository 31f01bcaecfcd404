package apptest

import (
	"context"
	"maps"
	"net/http"
	"testing"
	"time"
)

// The flows below are the steps tests take again and again, written once
// so that a test of one method and a cross-cutting test drive a login the
// same way. Each goes through the SDK face, as the widget does.

// SendCode asks for an email login code (login_or_signup).
func (e *Env) SendCode(org, email string) Resp {
	return e.SDK(http.MethodPost, "/b2b/otps/email/login_or_signup", map[string]any{"email_address": email, "organization_id": org}, "")
}

// CheckCode redeems an email login code for an hour's session.
func (e *Env) CheckCode(org, email, code string) Resp {
	return e.SDK(http.MethodPost, "/b2b/otps/email/authenticate", map[string]any{"email_address": email, "organization_id": org,
		"code": code, "session_duration_minutes": 60}, "")
}

// WrongCode returns a 6-digit code different from code.
func WrongCode(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}

// EmailLogin runs an email-code login and returns the authenticate answer
// (a session, or mfa_required with an IST).
func (e *Env) EmailLogin(org, email string) map[string]any {
	e.tb().Helper()
	if r := e.SendCode(org, email); r.Status != 200 {
		e.tb().Fatalf("apptest: send code: %s", r.Raw)
	}
	_, codes := e.LastMail(email)
	r := e.CheckCode(org, email, codes[0])
	if r.Status != 200 {
		e.tb().Fatalf("apptest: email login: %s", r.Raw)
	}
	return r.Data()
}

// Login logs email in to org by email code and returns the session token
// and JWT and the member's id.
func (e *Env) Login(org, email string) (token, jwt, memberID string) {
	e.tb().Helper()
	d := e.EmailLogin(org, email)
	token, _ = d["session_token"].(string)
	jwt, _ = d["session_jwt"].(string)
	memberID, _ = d["member_id"].(string)
	if token == "" || jwt == "" {
		e.tb().Fatalf("apptest: login gave no session: %v", d)
	}
	return token, jwt, memberID
}

// SessionFor is Login's session token.
func (e *Env) SessionFor(org, email string) string {
	e.tb().Helper()
	token, _, _ := e.Login(org, email)
	return token
}

// Discover proves email by a discovery code and returns the answer's data.
func (e *Env) Discover(email string) map[string]any {
	e.tb().Helper()
	if r := e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send", map[string]any{"email_address": email}, ""); r.Status != 200 {
		e.tb().Fatalf("apptest: discovery send: %s", r.Raw)
	}
	_, codes := e.LastMail(email)
	r := e.SDK(http.MethodPost, "/b2b/otps/email/discovery/authenticate", map[string]any{"email_address": email, "code": codes[0]}, "")
	if r.Status != 200 {
		e.tb().Fatalf("apptest: discovery authenticate: %s", r.Raw)
	}
	return r.Data()
}

// Memberships maps the slug of each discovered organization in a
// discovery answer to the membership type.
func Memberships(d map[string]any) map[string]string {
	out := map[string]string{}
	for _, x := range d["discovered_organizations"].([]any) {
		o := x.(map[string]any)
		out[o["organization"].(map[string]any)["organization_slug"].(string)] = o["membership"].(map[string]any)["type"].(string)
	}
	return out
}

// SendLink asks for a login magic link; extra adds or overrides fields.
func (e *Env) SendLink(org, email string, extra map[string]any) Resp {
	body := map[string]any{"email_address": email, "organization_id": org}
	maps.Copy(body, extra)
	return e.SDK(http.MethodPost, "/b2b/magic_links/email/login_or_signup", body, "")
}

// RedeemLink redeems a magic-link token for an hour's session.
func (e *Env) RedeemLink(token string, extra map[string]any) Resp {
	body := map[string]any{"magic_links_token": token, "session_duration_minutes": 60}
	maps.Copy(body, extra)
	return e.SDK(http.MethodPost, "/b2b/magic_links/authenticate", body, "")
}

// MagicLinkToken is the token of a login magic link to the registered page.
func MagicLinkToken(t testing.TB, link string) string {
	t.Helper()
	return LinkToken(t, link, Page, "multi_tenant_magic_links")
}

// Count runs a COUNT(*) query on the database.
func (e *Env) Count(query string, args ...any) int {
	e.tb().Helper()
	var n int
	if err := e.App.DB.Read().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		e.tb().Fatalf("apptest: %s: %v", query, err)
	}
	return n
}

// PendingTouch logs email in to org and checks the session once after
// the clock moved far enough for its last_accessed_at to be written, so
// that a touch waits in the session service's batch (written by the
// toucher or at Close); it returns the session token.
func (e *Env) PendingTouch(org, email string) string {
	e.tb().Helper()
	token, _, _ := e.Login(org, email)
	e.Clock.Advance(2 * time.Minute)
	if r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token}); r.Status != 200 {
		e.tb().Fatalf("apptest: session check: %s", r.Raw)
	}
	if e.App.Sessions.PendingTouches() == 0 {
		e.tb().Fatal("apptest: the check left no last_accessed_at touch pending")
	}
	return token
}
