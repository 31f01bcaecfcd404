package session_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/session"
)

func TestMergeClaims(t *testing.T) {
	current := map[string]any{"plan": "free", "seats": 3.0}
	cases := []struct {
		name    string
		update  map[string]any
		want    map[string]any
		errType apierr.Type
	}{
		{"add", map[string]any{"team": "red"}, map[string]any{"plan": "free", "seats": 3.0, "team": "red"}, ""},
		{"replace", map[string]any{"plan": "pro"}, map[string]any{"plan": "pro", "seats": 3.0}, ""},
		{"delete by null", map[string]any{"seats": nil, "gone": nil}, map[string]any{"plan": "free"}, ""},
		{"reserved ignored", map[string]any{"iss": "x", "sub": "x", "aud": "x", "exp": 1, "nbf": 1, "iat": 1, "jti": "x", "ok": true},
			map[string]any{"plan": "free", "seats": 3.0, "ok": true}, ""},
		{"stytch claim, folded", map[string]any{"https://ſtytch.com/session": 1}, nil, apierr.StytchClaimsInCustomClaims},
		{"stytch claim, mixed", map[string]any{"hTtPs://STYTCH.COM/session": 1}, nil, apierr.StytchClaimsInCustomClaims},
		{"not a stytch claim", map[string]any{"https://stytch.community/x": 1, "https://stytch.com": 2},
			map[string]any{"plan": "free", "seats": 3.0, "https://stytch.community/x": 1, "https://stytch.com": 2}, ""},
		{"nested keys are the customer's", map[string]any{"n": map[string]any{"sub": 1, "https://stytch.com/session": 2}},
			map[string]any{"plan": "free", "seats": 3.0, "n": map[string]any{"sub": 1, "https://stytch.com/session": 2}}, ""},
		{"suffixed is not registered", map[string]any{"subs": 1, "exp_at": 2},
			map[string]any{"plan": "free", "seats": 3.0, "subs": 1, "exp_at": 2}, ""},
		{"stytch session claim", map[string]any{"https://stytch.com/session": map[string]any{}}, nil, apierr.StytchClaimsInCustomClaims},
		{"stytch organization claim", map[string]any{"https://stytch.com/organization": "x"}, nil, apierr.StytchClaimsInCustomClaims},
		{"any stytch claim, any case", map[string]any{"HTTPS://Stytch.com/other": 1}, nil, apierr.StytchClaimsInCustomClaims},
		{"too large", map[string]any{"big": strings.Repeat("x", session.MaxClaimsBytes)}, nil, apierr.CustomClaimsTooLarge},
		{"not JSON", map[string]any{"nan": math.NaN()}, nil, apierr.UnrepresentableClaims},
	}
	// Every registered claim is ignored however it is spelled, even as a
	// null (nothing to delete: the server's own are never stored): a Go
	// verifier reads "Sub" or "EXP" as sub and exp.
	for _, k := range []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "Sub", "EXP", "Iat", "JTI", "iSS",
		"ſub", "ISſ", "AUD"} {
		cases = append(cases, struct {
			name    string
			update  map[string]any
			want    map[string]any
			errType apierr.Type
		}{"registered " + k, map[string]any{k: 1, "ok": true}, map[string]any{"plan": "free", "seats": 3.0, "ok": true}, ""})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := session.MergeClaims(current, c.update)
			if c.errType != "" {
				if !apierr.Is(err, c.errType) {
					t.Fatalf("err = %v, want %s", err, c.errType)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("MergeClaims = %v, %v; want %v", got, err, c.want)
			}
		})
	}
	if !reflect.DeepEqual(current, map[string]any{"plan": "free", "seats": 3.0}) {
		t.Fatalf("MergeClaims modified its input: %v", current)
	}
	// Objects merge key by key, at any depth, and a null deletes at any
	// depth: the API family's custom claims guide, whose example this is.
	stored := map[string]any{"c": 3.5, "d": 4.0, "e": map[string]any{"nested1": "val1", "nested2": "val2",
		"deep": map[string]any{"x": 1.0, "y": 2.0}}}
	got, err := session.MergeClaims(stored, map[string]any{"e": map[string]any{"nested1": nil, "nested3": "val3",
		"deep": map[string]any{"x": nil, "z": 3.0}}})
	want := map[string]any{"c": 3.5, "d": 4.0, "e": map[string]any{"nested2": "val2", "nested3": "val3",
		"deep": map[string]any{"y": 2.0, "z": 3.0}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("nested merge = %v, %v; want %v", got, err, want)
	}
	if !reflect.DeepEqual(stored["e"], map[string]any{"nested1": "val1", "nested2": "val2", "deep": map[string]any{"x": 1.0, "y": 2.0}}) {
		t.Fatalf("MergeClaims modified a nested object of its input: %v", stored)
	}
	// An object replacing a value that is not one keeps no nulls, nor
	// does a new object: a null is never stored.
	got, err = session.MergeClaims(stored, map[string]any{"c": map[string]any{"a": nil, "b": 1.0}, "n": map[string]any{"a": nil, "m": map[string]any{"q": nil}}})
	want = map[string]any{"c": map[string]any{"b": 1.0}, "d": 4.0, "e": stored["e"], "n": map[string]any{"m": map[string]any{}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("new objects = %v, %v; want %v", got, err, want)
	}
	// The limit counts the JSON as a client sends it: <, > and & are one
	// byte each, not encoding/json's six-byte HTML escapes.
	html := map[string]any{"h": strings.Repeat("<>&", 1000)}
	if _, err := session.MergeClaims(nil, html); err != nil {
		t.Fatalf("3,008 bytes of JSON with <, > and &: %v", err)
	}
	if _, err := session.MergeClaims(nil, map[string]any{"h": strings.Repeat("<", session.MaxClaimsBytes)}); !apierr.Is(err, apierr.CustomClaimsTooLarge) {
		t.Fatalf("over the limit with <: %v", err)
	}
	// The limit is on the merged claims, so deleting a key makes room.
	fill := map[string]any{"a": strings.Repeat("x", session.MaxClaimsBytes-20)}
	if _, err := session.MergeClaims(fill, map[string]any{"b": strings.Repeat("y", 20)}); !apierr.Is(err, apierr.CustomClaimsTooLarge) {
		t.Fatalf("merged claims over the limit: %v", err)
	}
	if _, err := session.MergeClaims(fill, map[string]any{"a": nil, "b": strings.Repeat("y", 20)}); err != nil {
		t.Fatalf("deleting a key did not make room: %v", err)
	}
}

// TestClaimKeysAsGoReadsThem: a key encoding/json would decode into the
// server's own claims (its struct matches keys by Unicode case folding)
// is never stored (a registered one is ignored, a stytch one refused);
// one it would not is kept.
func TestClaimKeysAsGoReadsThem(t *testing.T) {
	type verified struct {
		Iss, Sub, Aud, Exp, Nbf, Iat, Jti any
		Session                           any `json:"https://stytch.com/session"`
		Organization                      any `json:"https://stytch.com/organization"`
	}
	keys := []string{"sub", "SUB", "sUb", "ſub", "SUſ", "iſſ", "exp", "EXP", "Exp", "jti", "JtI",
		"https://stytch.com/session", "HTTPS://STYTCH.COM/SESSION", "https://ſtytch.com/session", "httpſ://stytch.com/organization",
		"https://STYTCH.com/organization",
		// Look-alikes encoding/json does not fold together: kept.
		"jtı", "İat", "ｓｕｂ", "sub ", "https://stytch.com./session", "kid", "Kid", "\u212aid", "https://stytch.co/session"}
	for _, k := range keys {
		var v verified
		body, _ := json.Marshal(map[string]any{k: "custom"})
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		readAsOwn := !reflect.DeepEqual(v, verified{})
		got, err := session.MergeClaims(nil, map[string]any{k: "custom"})
		if err != nil && !apierr.Is(err, apierr.StytchClaimsInCustomClaims) {
			t.Fatalf("key %q: %v", k, err)
		}
		if _, stored := got[k]; stored == readAsOwn {
			t.Errorf("key %q: stored %v (%v), but encoding/json reads it as the server's own: %v", k, stored, err, readAsOwn)
		}
	}
}

// customIn reads a check answer's member_session.custom_claims and the
// top-level claims of its JWT other than the registered and stytch ones.
func customIn(t *testing.T, r apptest.Resp) (answer, inJWT map[string]any) {
	t.Helper()
	apptest.Want(t, r, 200, "")
	ms, _ := r.Body["member_session"].(map[string]any)
	answer, _ = ms["custom_claims"].(map[string]any)
	return answer, jwtCustom(t, r.Body["session_jwt"].(string))
}

func jwtCustom(t *testing.T, token string) map[string]any {
	t.Helper()
	var all map[string]any
	if err := jwtPayload(token, &all); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "https://stytch.com/session", "https://stytch.com/organization"} {
		delete(all, k)
	}
	return all
}

func wantClaims(t *testing.T, r apptest.Resp, want map[string]any) {
	t.Helper()
	answer, inJWT := customIn(t, r)
	if !reflect.DeepEqual(answer, want) || !reflect.DeepEqual(inJWT, want) {
		t.Fatalf("custom claims: answer %v, JWT %v; want %v", answer, inJWT, want)
	}
}

func withClaims(e *apptest.Env, token string, claims any) apptest.Resp {
	return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token, "session_custom_claims": claims})
}

func TestSessionCustomClaims(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, _ := e.Login(org, "ada@acme.test")
		wantClaims(t, check(e, token, ""), map[string]any{})

		// Set: shown in the answer and as top-level claims of a new JWT,
		// and on every later check without the field, by token or JWT,
		// on either face.
		r := withClaims(e, token, map[string]any{"plan": "pro", "seats": 12345678901234567, "tags": []any{"a", "b"}})
		want := map[string]any{"plan": "pro", "seats": 12345678901234567.0, "tags": []any{"a", "b"}}
		wantClaims(t, r, want)
		if r.Body["session_jwt"] == jwt {
			t.Fatal("the JWT was not signed anew with the claims")
		}
		if !strings.Contains(string(r.Raw), `"seats":12345678901234567`) {
			t.Fatalf("a large integer was not carried exactly: %s", r.Raw)
		}
		wantClaims(t, check(e, token, ""), want)
		wantClaims(t, check(e, "", jwt), want)
		sdk := sdkCheck(e, token)
		if got, _ := sdk.Body["member_session"].(map[string]any)["custom_claims"].(map[string]any); !reflect.DeepEqual(got, want) ||
			!reflect.DeepEqual(jwtCustom(t, sdk.Body["session_jwt"].(string)), want) {
			t.Fatalf("SDK check: %s", sdk.Raw)
		}

		// A stytch claim, however spelled, is refused and changes nothing.
		for _, bad := range []map[string]any{{"plan": "x", "https://stytch.com/session": map[string]any{}},
			{"plan": "x", "https://ſtytch.com/session": map[string]any{}}} {
			apptest.Want(t, withClaims(e, token, bad), 400, "stytch_claims_in_custom_claims")
		}
		wantClaims(t, check(e, token, ""), want)

		// Update one key, delete one by null; the registered claims are
		// ignored however spelled, and a registered claim of the JWT keeps
		// its value.
		r = withClaims(e, token, map[string]any{"plan": "enterprise", "tags": nil, "sub": "member-test-someone-else", "exp": 1,
			"Sub": "member-test-someone-else", "EXP": 1})
		want = map[string]any{"plan": "enterprise", "seats": 12345678901234567.0}
		wantClaims(t, r, want)
		var reg struct{ Sub string }
		if err := jwtPayload(r.Body["session_jwt"].(string), &reg); err != nil || reg.Sub != r.Body["member_session"].(map[string]any)["member_id"] {
			t.Fatalf("sub = %q (%v)", reg.Sub, err)
		}
		// With a duration, both are written.
		r = e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_jwt": jwt,
			"session_duration_minutes": 120, "session_custom_claims": map[string]any{"seats": nil}})
		want = map[string]any{"plan": "enterprise"}
		wantClaims(t, r, want)
		exp, _ := time.Parse(time.RFC3339, r.Body["member_session"].(map[string]any)["expires_at"].(string))
		if !exp.Equal(e.Clock.Now().Add(120 * time.Minute)) {
			t.Fatalf("expires_at = %v, want now+120m", exp)
		}

		// A nested object merges key by key; a nested null deletes.
		wantClaims(t, withClaims(e, token, map[string]any{"e": map[string]any{"nested1": "val1", "nested2": "val2"}}),
			map[string]any{"plan": "enterprise", "e": map[string]any{"nested1": "val1", "nested2": "val2"}})
		want = map[string]any{"plan": "enterprise", "e": map[string]any{"nested2": "val2", "nested3": "val3"}}
		wantClaims(t, withClaims(e, token, map[string]any{"e": map[string]any{"nested1": nil, "nested3": "val3"}}), want)
		wantClaims(t, check(e, token, ""), want)

		// <, > and & count one byte each and come back as sent.
		html := strings.Repeat("<a&b>", 600)
		want["h"] = html
		wantClaims(t, withClaims(e, token, map[string]any{"h": html}), want)
		wantClaims(t, withClaims(e, token, map[string]any{"h": nil}), map[string]any{"plan": "enterprise", "e": want["e"]})
		delete(want, "h")

		// Refusals change nothing.
		apptest.Want(t, withClaims(e, token, map[string]any{"https://stytch.com/session": map[string]any{"id": "x"}}),
			400, "stytch_claims_in_custom_claims")
		apptest.Want(t, withClaims(e, token, map[string]any{"big": strings.Repeat("x", 4100)}), 400, "custom_claims_too_large")
		apptest.Want(t, withClaims(e, token, []any{"plan"}), 400, "invalid_request")
		apptest.Want(t, withClaims(e, token, "plan"), 400, "invalid_request")
		wantClaims(t, check(e, token, ""), want)

		// The SDK face takes no claims: a browser never chooses its own.
		sdk = e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{"session_custom_claims": map[string]any{"admin": true}}, token)
		apptest.Want(t, sdk, 200, "")
		wantClaims(t, check(e, token, ""), want)

		// A revoked session's claims cannot be written.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": token}), 200, "")
		apptest.Want(t, withClaims(e, token, map[string]any{"plan": "x"}), 404, "session_not_found")
	})
}

// TestCustomClaimsKeepCachedAnswers: a check without claims after a check
// with them is answered from memory again, with the same JWT.
func TestCustomClaimsKeepCachedAnswers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _, _ := e.Login(org, "ada@acme.test")
		set := withClaims(e, token, map[string]any{"plan": "pro"})
		apptest.Want(t, set, 200, "")
		first := check(e, token, "")
		second := check(e, token, "")
		if first.Body["session_jwt"] != second.Body["session_jwt"] {
			t.Fatal("a fresh JWT with custom claims was signed again")
		}
		var raw json.RawMessage = second.Raw
		if !strings.Contains(string(raw), `"custom_claims":{"plan":"pro"}`) {
			t.Fatalf("answer: %s", raw)
		}
	})
}

// TestLoginsTakeCustomClaims: a backend login that starts a session
// stores its session_custom_claims (refused by the same rule), and the
// SDK face's logins take none.
func TestLoginsTakeCustomClaims(t *testing.T) {
	const pw = "correct horse battery staple 1"
	logins := []struct {
		name  string
		login func(t *testing.T, e *apptest.Env, org, email string, claims any) apptest.Resp
	}{
		{"email code", func(t *testing.T, e *apptest.Env, org, email string, claims any) apptest.Resp {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup", map[string]any{"organization_id": org, "email_address": email}), 200, "")
			_, codes := e.LastMail(email)
			return e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": org, "email_address": email,
				"code": codes[0], "session_custom_claims": claims})
		}},
		{"magic link", func(t *testing.T, e *apptest.Env, org, email string, claims any) apptest.Resp {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/login_or_signup", map[string]any{"organization_id": org, "email_address": email}), 200, "")
			links, _ := e.LastMail(email)
			return e.Backend(http.MethodPost, "/v1/b2b/magic_links/authenticate", map[string]any{
				"magic_links_token": apptest.MagicLinkToken(t, links[0]), "session_custom_claims": claims})
		}},
		// Redeeming an email update logs the member in with the new
		// address, by code or by link, and takes claims as a login does.
		{"email update code", func(t *testing.T, e *apptest.Env, org, email string, claims any) apptest.Resp {
			to := startEmailUpdate(t, e, org, email, "EMAIL_OTP")
			_, codes := e.LastMail(to)
			return e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": org, "email_address": to,
				"code": codes[0], "session_custom_claims": claims})
		}},
		{"email update link", func(t *testing.T, e *apptest.Env, org, email string, claims any) apptest.Resp {
			to := startEmailUpdate(t, e, org, email, "EMAIL_MAGIC_LINK")
			links, _ := e.LastMail(to)
			return e.Backend(http.MethodPost, "/v1/b2b/magic_links/authenticate", map[string]any{
				"magic_links_token": apptest.MagicLinkToken(t, links[0]), "session_custom_claims": claims})
		}},
		{"password", func(t *testing.T, e *apptest.Env, org, email string, claims any) apptest.Resp {
			e.SetPassword(org, email, pw)
			return e.Backend(http.MethodPost, "/v1/b2b/passwords/authenticate", map[string]any{"organization_id": org, "email_address": email,
				"password": pw, "session_custom_claims": claims})
		}},
	}
	for _, l := range logins {
		t.Run(l.name, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
				apptest.Want(t, l.login(t, e, org, "eve@acme.test", map[string]any{"https://stytch.com/organization": "x"}),
					400, "stytch_claims_in_custom_claims")
				r := l.login(t, e, org, "ada@acme.test", map[string]any{"plan": "pro", "iat": 1, "Iat": 1, "gone": nil})
				want := map[string]any{"plan": "pro"}
				wantClaims(t, r, want)
				wantClaims(t, check(e, r.Body["session_token"].(string), ""), want)
			})
		})
	}
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.SetPassword(org, "ada@acme.test", pw)
		r := e.SDK(http.MethodPost, "/b2b/passwords/authenticate", map[string]any{"organization_id": org, "email_address": "ada@acme.test",
			"password": pw, "session_custom_claims": map[string]any{"admin": true}}, "")
		apptest.Want(t, r, 200, "")
		wantClaims(t, check(e, r.Data()["session_token"].(string), ""), map[string]any{})
	})
}

// startEmailUpdate has the backend start moving a new verified member of
// org from email to another address, sent by method, and returns that
// address.
func startEmailUpdate(t *testing.T, e *apptest.Env, org, email, method string) string {
	t.Helper()
	to := "new." + email
	apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members/"+e.CreateVerifiedMember(org, email)+"/start_email_update",
		map[string]any{"email_address": to, "delivery_method": method}), 200, "")
	return to
}

// TestSteppedUpSessionKeepsItsClaims: a login joining a held session
// starts a new session with the held one's factors; its custom claims
// carry over too, updated by the login's.
func TestSteppedUpSessionKeepsItsClaims(t *testing.T) {
	const pw = "correct horse battery staple 1"
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _, _ := e.Login(org, "ada@acme.test")
		apptest.Want(t, withClaims(e, token, map[string]any{"plan": "pro", "team": "red"}), 200, "")
		e.SetPassword(org, "ada@acme.test", pw)
		r := e.Backend(http.MethodPost, "/v1/b2b/passwords/authenticate", map[string]any{"organization_id": org,
			"email_address": "ada@acme.test", "password": pw, "session_token": token,
			"session_custom_claims": map[string]any{"team": nil, "seats": 2}})
		wantClaims(t, r, map[string]any{"plan": "pro", "seats": 2.0})
		if factors := r.Body["member_session"].(map[string]any)["authentication_factors"].([]any); len(factors) != 2 {
			t.Fatalf("not a stepped-up session: %v", factors)
		}
	})
}

// Releases that compared claim keys byte for byte stored keys such as Sub,
// EXP or https://ſtytch.com/session, which a Go verifier decoding the JWT
// reads as the server's own. Such a stored key is shown nowhere, signed
// into no JWT, and gone from the row at the next update.
func TestStoredKeysOfEarlierReleasesAreDropped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _, memberID := e.Login(org, "ada@acme.test")
		ctx := context.Background()
		if _, err := e.App.DB.ExecContext(ctx, `UPDATE member_sessions SET custom_claims = $1 WHERE token_hash = $2`,
			`{"Sub":"member-test-someone-else","EXP":4102444800,"https://ſtytch.com/session":{},"plan":"free"}`, ids.Hash(token)); err != nil {
			t.Fatal(err)
		}
		wantOwn := func(r apptest.Resp, want map[string]any) {
			t.Helper()
			wantClaims(t, r, want)
			var reg struct {
				Sub string
				Exp float64
			}
			if err := jwtPayload(r.Body["session_jwt"].(string), &reg); err != nil || reg.Sub != memberID || reg.Exp > 4e9 {
				t.Fatalf("a Go verifier reads sub %q, exp %v (%v)", reg.Sub, reg.Exp, err)
			}
		}
		// The change reaches the session cache through the change feed.
		deadline := time.Now().Add(5 * time.Second)
		r := check(e, token, "")
		for {
			if answer, _ := customIn(t, r); answer["plan"] != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
			r = check(e, token, "")
		}
		wantOwn(r, map[string]any{"plan": "free"})

		wantOwn(withClaims(e, token, map[string]any{"plan": "pro"}), map[string]any{"plan": "pro"})
		var stored string
		if err := e.App.DB.QueryRowContext(ctx, `SELECT custom_claims FROM member_sessions WHERE token_hash = $1`,
			ids.Hash(token)).Scan(&stored); err != nil || stored != `{"plan":"pro"}` {
			t.Fatalf("stored claims after the update: %s (%v)", stored, err)
		}
	})
}
