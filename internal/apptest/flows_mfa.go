package apptest

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"
)

// AlignClock moves the fake clock 15 s into a 30-second TOTP step, so
// "now ± n steps" in a test never straddles a step boundary by accident.
func (e *Env) AlignClock() {
	now := e.Clock.Now()
	e.Clock.Advance(time.Duration(45-now.Unix()%30) * time.Second)
}

// TOTPAt computes the 6-digit RFC 6238 (SHA-1, 30 s) code of a base32
// secret at a time. It is written from the RFC independently of the
// server's library, so a test passes only if the server and the RFC agree.
func TOTPAt(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(secret))
	if err != nil {
		t.Fatalf("apptest: secret %q is not base32: %v", secret, err)
	}
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], uint64(at.Unix()/30))
	mac := hmac.New(sha1.New, key)
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	return fmt.Sprintf("%06d", v%1_000_000)
}

// SetMFA sets an organization's MFA policy and, when methods are given,
// restricts MFA to them.
func (e *Env) SetMFA(org, policy string, methods ...string) {
	e.tb().Helper()
	body := map[string]any{"mfa_policy": policy, "mfa_methods": "ALL_ALLOWED"}
	if len(methods) > 0 {
		body["mfa_methods"], body["allowed_mfa_methods"] = "RESTRICTED", methods
	}
	if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, body); r.Status != 200 {
		e.tb().Fatalf("apptest: set mfa policy: %s", r.Raw)
	}
}

// MFAMember is the usual MFA fixture: an organization that requires MFA
// of everyone, with one member, ada@secure.test, not yet enrolled.
func (e *Env) MFAMember() (org, mid string) {
	e.tb().Helper()
	org = e.CreateOrg("secure", "NOT_ALLOWED", nil)
	e.SetMFA(org, "REQUIRED_FOR_ALL")
	return org, e.CreateMember(org, "ada@secure.test")
}

// MFALogin runs an email login that must stop at mfa_required and returns
// the IST and the mfa_required object.
func (e *Env) MFALogin(org, email string) (string, map[string]any) {
	e.tb().Helper()
	d := e.EmailLogin(org, email)
	ist, _ := d["intermediate_session_token"].(string)
	req, _ := d["mfa_required"].(map[string]any)
	if d["member_session"] != nil || d["member_authenticated"] != false || ist == "" || req == nil || d["session_token"] != "" {
		e.tb().Fatalf("apptest: login did not stop at mfa_required: %v", d)
	}
	return ist, req
}

// TOTPMember is MFAMember enrolled in an authenticator app by the backend
// and proven by a first login (recovery codes count only from then on).
// It returns the app's secret and the recovery codes as well.
func (e *Env) TOTPMember() (org, mid, secret string, codes []any) {
	e.tb().Helper()
	org, mid = e.MFAMember()
	r := e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": mid})
	codes, _ = r.Body["recovery_codes"].([]any)
	secret, _ = r.Body["secret"].(string)
	if r.Status != 200 || len(codes) == 0 || secret == "" {
		e.tb().Fatalf("apptest: backend totp create: %s", r.Raw)
	}
	ist, _ := e.MFALogin(org, "ada@secure.test")
	r = e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
		"intermediate_session_token": ist, "code": TOTPAt(e.tb(), secret, e.Clock.Now())})
	// B2BTOTPsAuthenticateResponse always holds a session (no
	// member_authenticated): the step completes the login.
	if tok, _ := r.Body["session_token"].(string); r.Status != 200 || tok == "" || r.Body["member_session"] == nil {
		e.tb().Fatalf("apptest: first login proves the registration: %s", r.Raw)
	}
	return org, mid, secret, codes
}

// SMSSend sends an MFA code by text message within a login (ist); phone
// enrolls a number when not "".
func (e *Env) SMSSend(org, mid, ist, phone string) Resp {
	body := map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist}
	if phone != "" {
		body["mfa_phone_number"] = phone
	}
	return e.SDK(http.MethodPost, "/b2b/otps/sms/send", body, "")
}

// SMSAuth redeems a text-message code within a login (ist).
func (e *Env) SMSAuth(org, mid, ist, code string, extra map[string]any) Resp {
	body := map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist, "code": code,
		"session_duration_minutes": 60}
	maps.Copy(body, extra)
	return e.SDK(http.MethodPost, "/b2b/otps/sms/authenticate", body, "")
}

// LastSMS returns the code of the newest text message to a number.
func (e *Env) LastSMS(to string) string {
	e.tb().Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 1)
	if err != nil || len(msgs) == 0 || msgs[0].Channel != "sms" || len(msgs[0].Codes) != 1 {
		e.tb().Fatalf("apptest: no sms to %s: %+v %v", to, msgs, err)
	}
	return msgs[0].Codes[0]
}

// SessionSMS enrolls a phone number with a session and returns the
// stepped-up session token.
func (e *Env) SessionSMS(org, mid, token, phone string, extra map[string]any) string {
	e.tb().Helper()
	if r := e.SDK(http.MethodPost, "/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid, "mfa_phone_number": phone}, token); r.Status != 200 {
		e.tb().Fatalf("apptest: sms send: %s", r.Raw)
	}
	body := map[string]any{"organization_id": org, "member_id": mid, "code": e.LastSMS(phone)}
	maps.Copy(body, extra)
	r := e.SDK(http.MethodPost, "/b2b/otps/sms/authenticate", body, token)
	if r.Status != 200 {
		e.tb().Fatalf("apptest: sms authenticate: %s", r.Raw)
	}
	return r.Data()["session_token"].(string)
}

// SessionTOTP enrolls an authenticator app with a session and returns the
// secret and the stepped-up session token.
func (e *Env) SessionTOTP(org, mid, token string, extra map[string]any) (string, string) {
	e.tb().Helper()
	r := e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid}, token)
	if r.Status != 200 {
		e.tb().Fatalf("apptest: totp create: %s", r.Raw)
	}
	secret := r.Data()["secret"].(string)
	body := map[string]any{"organization_id": org, "member_id": mid, "code": TOTPAt(e.tb(), secret, e.Clock.Now())}
	maps.Copy(body, extra)
	if r = e.SDK(http.MethodPost, "/b2b/totp/authenticate", body, token); r.Status != 200 {
		e.tb().Fatalf("apptest: totp authenticate: %s", r.Raw)
	}
	return secret, r.Data()["session_token"].(string)
}

// MemberOf is the member object of an answer's data.
func MemberOf(d map[string]any) map[string]any { m, _ := d["member"].(map[string]any); return m }

// SessionFactors lists "type/delivery_method/sequence_order" of the
// member session in an answer's data.
func SessionFactors(d map[string]any) []string {
	ms, _ := d["member_session"].(map[string]any)
	if ms == nil {
		return nil
	}
	var out []string
	for _, f := range ms["authentication_factors"].([]any) {
		f := f.(map[string]any)
		out = append(out, fmt.Sprintf("%s/%s/%s", f["type"], f["delivery_method"], f["sequence_order"]))
	}
	return out
}

// WantFactors fails unless the session's factors are want, in order (see
// SessionFactors).
func WantFactors(t testing.TB, d map[string]any, want ...string) {
	t.Helper()
	if got := SessionFactors(d); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("factors = %v, want %v", got, want)
	}
}

// EnrollTOTPWithSession logs in (no MFA required), creates a registration
// with the session, verifies it, and returns the secret, the login's
// session token and the stepped-up session token.
func (e *Env) EnrollTOTPWithSession(org, email string, extra map[string]any) (secret, before, token string) {
	e.tb().Helper()
	d := e.EmailLogin(org, email)
	token, _ = d["session_token"].(string)
	before = token
	if token == "" {
		e.tb().Fatalf("apptest: login gave no session: %v", d)
	}
	r := e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": d["organization"].(map[string]any)["organization_id"],
		"member_id": d["member_id"]}, token)
	if r.Status != 200 {
		e.tb().Fatalf("apptest: totp create with a session: %s", r.Raw)
	}
	secret = r.Data()["secret"].(string)
	body := map[string]any{"organization_id": org, "member_id": d["member_id"], "code": TOTPAt(e.tb(), secret, e.Clock.Now())}
	maps.Copy(body, extra)
	r = e.SDK(http.MethodPost, "/b2b/totp/authenticate", body, token)
	if r.Status != 200 {
		e.tb().Fatalf("apptest: totp authenticate with a session: %s", r.Raw)
	}
	return secret, before, r.Data()["session_token"].(string)
}
