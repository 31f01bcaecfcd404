package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCleanJSON(t *testing.T) {
	for _, tc := range []struct {
		body  string
		dirty bool
	}{
		{`{"a":"b"}`, false},
		{`{"a":"\u00e9\u20ac"}`, false},
		{`{"a":"\\u0000"}`, false}, // a backslash, then the text u0000
		{`{"a":"x\\\\"}`, false},
		{`{"a":"\u0000"}`, true},
		{`{"a":"ok\\\u0000"}`, true},
		{"{\"a\":\"\xff\"}", true},
		{`\`, false},
		{`{"a":"\u000`, false}, // truncated: a syntax error for Unmarshal
		// UTF-16 surrogates: a pair is one character, either half alone
		// is none (encoding/json would store U+FFFD).
		{`{"a":"\ud83d\ude00"}`, false},
		{`{"a":"x\uD83D\uDE00y\u00e9"}`, false},
		{`{"\ud83d\ude00":"\ud83d\ude00\ud83d\ude00"}`, false},
		{`{"a":"\\ud800"}`, false}, // a backslash, then the text ud800
		{`{"a":"a\ud800b"}`, true},
		{`{"a":"a\uDBFF"}`, true},
		{`{"a":"a\udc00b"}`, true},
		{`{"a":"\ude00\ud83d"}`, true},              // the halves the wrong way round
		{`{"a":"\ud83d\ud83d\ude00"}`, true},        // a high half, then a pair
		{`{"a":"\ud83d\\ude00"}`, true},             // a high half, then an escaped backslash
		{`{"a":"\ud83d\u0041"}`, true},              // a high half, then another character
		{`{"\ud800":"b"}`, true},                    // in a key too
		{`{"a":"\ud83d\ude00","b":"\udfff"}`, true}, // after a pair
		{`{"a":"\ud800`, true},                      // truncated after a high half
	} {
		if got := cleanJSON([]byte(tc.body)) != nil; got != tc.dirty {
			t.Errorf("cleanJSON(%q) dirty=%v, want %v", tc.body, got, tc.dirty)
		}
	}
}

func TestWithCleanInputRefusesNULAndInvalidUTF8(t *testing.T) {
	var reached string
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reached = string(b)
		w.WriteHeader(http.StatusNoContent)
	}), WithBodyLimit(1<<10), WithCleanInput())
	do := func(target, ctype, body string, hdr map[string]string) (int, string) {
		req := httptest.NewRequest(http.MethodPost, "http://x"+target, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		reached = ""
		h.ServeHTTP(rec, req)
		var e struct {
			ErrorType string `json:"error_type"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		return rec.Code, e.ErrorType
	}
	for _, tc := range []struct {
		name, target, ctype, body string
		hdr                       map[string]string
	}{
		{"path nul", "/v1/orgs/a%00b", "", "", nil},
		{"path utf8", "/v1/orgs/%ff", "", "", nil},
		{"query nul", "/v1/x?member_id=%00", "", "", nil},
		{"query utf8", "/v1/x?to=%c0%af", "", "", nil},
		{"basic nul", "/v1/x", "", "", map[string]string{"Authorization": "Basic " + b64("a\x00:b")}},
		{"basic utf8", "/v1/x", "", "", map[string]string{"Authorization": "Basic " + b64("a:\xff")}},
		{"origin", "/v1/x", "", "", map[string]string{"Origin": "http://\xff.test"}},
		{"form nul", "/v1/x", "application/x-www-form-urlencoded", "code=%00", nil},
		{"form utf8", "/v1/x", "application/x-www-form-urlencoded; charset=utf-8", "code=%ff", nil},
		// url.ParseQuery drops a pair that does not parse and hands the
		// others to the handler, so a bad escape must not skip the check
		// of the rest; and a pair that does not parse is refused itself.
		{"query nul beside a bad escape", "/v1/x?member_id=%00&junk=%zz", "", "", nil},
		{"query utf8 beside a bad escape", "/v1/x?member_id=%ff&junk=%zz", "", "", nil},
		{"form nul beside a bad escape", "/v1/x", "application/x-www-form-urlencoded", "code=%00&junk=%zz", nil},
		{"form utf8 beside a bad escape", "/v1/x", "application/x-www-form-urlencoded", "code=%ff&junk=%zz", nil},
		{"query bad escape", "/v1/x?member_id=m1&junk=%zz", "", "", nil},
		{"query semicolon", "/v1/x?member_id=m1;x=1", "", "", nil},
		{"form bad escape", "/v1/x", "application/x-www-form-urlencoded", "code=abc&junk=%zz", nil},
		{"query nul key", "/v1/x?a%00=1", "", "", nil},
	} {
		if code, typ := do(tc.target, tc.ctype, tc.body, tc.hdr); code != 400 || typ != "invalid_request" {
			t.Errorf("%s: got %d %q, want 400 invalid_request", tc.name, code, typ)
		}
	}
	// Clean requests pass, and a form body is still there for the handler.
	if code, _ := do("/v1/x?q=%C3%A9", "application/x-www-form-urlencoded", "code=abc&x=%C3%A9", nil); code != 204 || reached != "code=abc&x=%C3%A9" {
		t.Errorf("clean form: %d, body %q", code, reached)
	}
	if code, _ := do("/v1/x", "application/json", `{"a":"\u0000"}`, nil); code != 204 {
		t.Errorf("JSON bodies are Decode's to check: %d", code)
	}
	if code, typ := do("/v1/x", "application/x-www-form-urlencoded", "a="+strings.Repeat("x", 2<<10), nil); code != 413 || typ != "request_too_large" {
		t.Errorf("oversized form: %d %q", code, typ)
	}
}

// An unpaired surrogate is refused by Decode, on encoding/json's way and
// on the fast way alike, where before it was stored as U+FFFD.
func TestDecodeRefusesLoneSurrogates(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"organization_name":"a\ud800b"}`, `{"session_jwt":"\udc00"}`, `{"session_token":"a","session_jwt":"\ud800"}`} {
		var plain struct {
			Name string `json:"organization_name"`
		}
		var fast flatTarget
		for _, dst := range []any{&plain, &fast} {
			err := Decode(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), dst)
			if err == nil || !strings.Contains(err.Error(), "invalid_request") {
				t.Errorf("Decode(%s) into %T = %v, %+v", body, dst, err, dst)
			}
		}
	}
	var fast flatTarget
	if err := Decode(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"session_jwt":"\ud83d\ude00"}`)), &fast); err != nil || fast.JWT != "😀" {
		t.Errorf("a pair: %v, %q", err, fast.JWT)
	}
}

func TestDecodeRefusesEscapedNUL(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, "http://x/", strings.NewReader(`{"email_address":"a\u0000@b.test"}`))
	var dst struct {
		Email string `json:"email_address"`
	}
	err := Decode(req, &dst)
	if err == nil || !strings.Contains(err.Error(), "invalid_request") {
		t.Fatalf("Decode: %v", err)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
