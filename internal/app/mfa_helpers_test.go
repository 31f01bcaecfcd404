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

	"github.com/latchkey/latchkey/internal/apptest"
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
func setMFA(e *apptest.Env, org, policy string, methods ...string) {
	e.T.Helper()
	body := map[string]any{"mfa_policy": policy, "mfa_methods": "ALL_ALLOWED"}
	if len(methods) > 0 {
		body["mfa_methods"], body["allowed_mfa_methods"] = "RESTRICTED", methods
	}
	if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, body); r.Status != 200 {
		e.T.Fatalf("set mfa policy: %s", r.Raw)
	}
}

// emailLogin runs an email-code login and returns the authenticate answer
// (a session, or mfa_required with an IST).
func emailLogin(e *apptest.Env, org, email string) map[string]any {
	e.T.Helper()
	if r := sendCode(e, org, email); r.Status != 200 {
		e.T.Fatalf("send code: %s", r.Raw)
	}
	_, codes := e.LastMail(email)
	r := checkCode(e, org, email, codes[0])
	if r.Status != 200 {
		e.T.Fatalf("email login: %s", r.Raw)
	}
	return r.Data()
}

// mfaMember is the usual MFA fixture: an organization that requires MFA
// of everyone, with one member, ada@secure.test, not yet enrolled.
func mfaMember(e *apptest.Env) (org, mid string) {
	e.T.Helper()
	org = e.CreateOrg("secure", "NOT_ALLOWED", nil)
	setMFA(e, org, "REQUIRED_FOR_ALL")
	return org, e.CreateMember(org, "ada@secure.test")
}

// totpMember is mfaMember enrolled in an authenticator app by the backend
// and proven by a first login (recovery codes count only from then on).
// It returns the app's secret and the recovery codes as well.
func totpMember(e *apptest.Env) (org, mid, secret string, codes []any) {
	e.T.Helper()
	org, mid = mfaMember(e)
	r := e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": mid})
	codes, _ = r.Body["recovery_codes"].([]any)
	secret, _ = r.Body["secret"].(string)
	if r.Status != 200 || len(codes) == 0 || secret == "" {
		e.T.Fatalf("backend totp create: %s", r.Raw)
	}
	ist, _ := mfaLogin(e, org, "ada@secure.test")
	r = e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
		"intermediate_session_token": ist, "code": totpAt(e.T, secret, e.Clock.Now())})
	if r.Status != 200 || r.Body["member_authenticated"] != true {
		e.T.Fatalf("first login proves the registration: %s", r.Raw)
	}
	return org, mid, secret, codes
}

// mfaLogin runs an email login that must stop at mfa_required and returns
// the IST and the mfa_required object.
func mfaLogin(e *apptest.Env, org, email string) (string, map[string]any) {
	e.T.Helper()
	d := emailLogin(e, org, email)
	ist, _ := d["intermediate_session_token"].(string)
	req, _ := d["mfa_required"].(map[string]any)
	if d["member_session"] != nil || d["member_authenticated"] != false || ist == "" || req == nil || d["session_token"] != "" {
		e.T.Fatalf("login did not stop at mfa_required: %v", d)
	}
	return ist, req
}

// sdkCall calls the SDK face with any method (e.sdk is POST only).
func sdkCall(e *apptest.Env, method, path string, body any, sessionToken string) apptest.Resp {
	e.T.Helper()
	pass := sessionToken
	if pass == "" {
		pass = e.Project.PublicToken
	}
	return e.Do(method, "/sdk/v1"+path, body, http.Header{"Origin": {apptest.Origin}}, e.Project.PublicToken, pass)
}

// lastSMS returns the code of the newest text message to a number.
func lastSMS(e *apptest.Env, to string) string {
	e.T.Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 1)
	if err != nil || len(msgs) == 0 || msgs[0].Channel != "sms" || len(msgs[0].Codes) != 1 {
		e.T.Fatalf("no sms to %s: %+v %v", to, msgs, err)
	}
	return msgs[0].Codes[0]
}

// smsCount counts the text messages to a number.
func smsCount(e *apptest.Env, to string) int {
	e.T.Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 200)
	if err != nil {
		e.T.Fatal(err)
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
func alignClock(e *apptest.Env) {
	now := e.Clock.Now()
	e.Clock.Advance(time.Duration(45-now.Unix()%30) * time.Second) // 15 s into a step
}
