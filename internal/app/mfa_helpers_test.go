package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Helpers for the MFA tests. The TOTP code generator below is written from
// RFC 6238 independently of the server's library, so a test passes only if
// the server and the RFC agree.

// totpAt computes the 6-digit RFC 6238 (SHA-1, 30 s) code of a base32
// secret at time t.
func totpAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(secret))
	if err != nil {
		t.Fatalf("secret %q is not base32: %v", secret, err)
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

// setMFA sets an organization's MFA policy and, when methods are given,
// restricts MFA to them.
func (e *env) setMFA(org, policy string, methods ...string) {
	e.t.Helper()
	body := map[string]any{"mfa_policy": policy, "mfa_methods": "ALL_ALLOWED"}
	if len(methods) > 0 {
		body["mfa_methods"], body["allowed_mfa_methods"] = "RESTRICTED", methods
	}
	if r := e.backend(http.MethodPut, "/v1/b2b/organizations/"+org, body); r.Status != 200 {
		e.t.Fatalf("set mfa policy: %s", r.Raw)
	}
}

// emailLogin runs an email-code login and returns the authenticate answer
// (a session, or mfa_required with an IST).
func (e *env) emailLogin(org, email string) map[string]any {
	e.t.Helper()
	if r := e.sendCode(org, email); r.Status != 200 {
		e.t.Fatalf("send code: %s", r.Raw)
	}
	_, codes := e.lastMail(email)
	r := e.checkCode(org, email, codes[0])
	if r.Status != 200 {
		e.t.Fatalf("email login: %s", r.Raw)
	}
	return r.data()
}

// mfaMember is the usual MFA fixture: an organization that requires MFA
// of everyone, with one member, ada@secure.test, not yet enrolled.
func (e *env) mfaMember() (org, mid string) {
	e.t.Helper()
	org = e.createOrg("secure", "NOT_ALLOWED")
	e.setMFA(org, "REQUIRED_FOR_ALL")
	return org, e.createMember(org, "ada@secure.test")
}

// totpMember is mfaMember enrolled in an authenticator app by the backend
// and proven by a first login (recovery codes count only from then on).
// It returns the app's secret and the recovery codes as well.
func (e *env) totpMember() (org, mid, secret string, codes []any) {
	e.t.Helper()
	org, mid = e.mfaMember()
	r := e.backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": mid})
	codes, _ = r.Body["recovery_codes"].([]any)
	secret, _ = r.Body["secret"].(string)
	if r.Status != 200 || len(codes) == 0 || secret == "" {
		e.t.Fatalf("backend totp create: %s", r.Raw)
	}
	ist, _ := e.mfaLogin(org, "ada@secure.test")
	r = e.backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
		"intermediate_session_token": ist, "code": totpAt(e.t, secret, e.clock.Now())})
	if r.Status != 200 || r.Body["member_authenticated"] != true {
		e.t.Fatalf("first login proves the registration: %s", r.Raw)
	}
	return org, mid, secret, codes
}

// mfaLogin runs an email login that must stop at mfa_required and returns
// the IST and the mfa_required object.
func (e *env) mfaLogin(org, email string) (string, map[string]any) {
	e.t.Helper()
	d := e.emailLogin(org, email)
	ist, _ := d["intermediate_session_token"].(string)
	req, _ := d["mfa_required"].(map[string]any)
	if d["member_session"] != nil || d["member_authenticated"] != false || ist == "" || req == nil || d["session_token"] != "" {
		e.t.Fatalf("login did not stop at mfa_required: %v", d)
	}
	return ist, req
}

// sdkCall calls the SDK face with any method (e.sdk is POST only).
func (e *env) sdkCall(method, path string, body any, sessionToken string) resp {
	e.t.Helper()
	pass := sessionToken
	if pass == "" {
		pass = e.proj.PublicToken
	}
	return e.do(method, "/sdk/v1"+path, body, http.Header{"Origin": {e.origin}}, e.proj.PublicToken, pass)
}

// lastSMS returns the code of the newest text message to a number.
func (e *env) lastSMS(to string) string {
	e.t.Helper()
	msgs, err := e.app.Outbox.List(context.Background(), to, 1)
	if err != nil || len(msgs) == 0 || msgs[0].Channel != "sms" || len(msgs[0].Codes) != 1 {
		e.t.Fatalf("no sms to %s: %+v %v", to, msgs, err)
	}
	return msgs[0].Codes[0]
}

// smsCount counts the text messages to a number.
func (e *env) smsCount(to string) int {
	e.t.Helper()
	msgs, err := e.app.Outbox.List(context.Background(), to, 200)
	if err != nil {
		e.t.Fatal(err)
	}
	return len(msgs)
}

// factorTypes lists "type/delivery_method/sequence_order" of a session.
func factorTypes(d map[string]any) []string {
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

func member(d map[string]any) map[string]any { m, _ := d["member"].(map[string]any); return m }

func wantFactors(t *testing.T, d map[string]any, want ...string) {
	t.Helper()
	got := factorTypes(d)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("factors = %v, want %v", got, want)
	}
}

// A fixed fake-clock start inside a 30-second step, so "now ± n steps" in a
// test never straddles a step boundary by accident.
func (e *env) alignClock() {
	now := e.clock.Now()
	e.clock.Advance(time.Duration(45-now.Unix()%30) * time.Second) // 15 s into a step
}
