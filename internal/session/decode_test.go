package session

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// The SDK's session check sends {}: its request type is read without
// encoding/json (httpapi.StringFields), and every body decodes to what
// encoding/json makes of it.
func TestRefreshRequestDecodesFlat(t *testing.T) {
	t.Parallel()
	var req any = &refreshRequest{}
	f, ok := req.(httpapi.StringFields)
	if !ok {
		t.Fatal("refreshRequest is not an httpapi.StringFields: the SDK's {} goes through encoding/json")
	}
	for _, key := range []string{"session_duration_minutes", "authorization_check", ""} {
		if f.StringField(key) != nil {
			t.Errorf("StringField(%q) is not nil, but refreshRequest has no plain string field", key)
		}
	}
	for _, body := range []string{
		``, `{}`, " {\n\t}\r\n",
		`{"session_duration_minutes":5}`,
		`{"session_duration_minutes":"5"}`,
		`{"authorization_check":{"organization_id":"o","resource_id":"r","action":"a"}}`,
		`{"x":"y"}`, `{"x":"y"} z`, `[]`,
	} {
		var got refreshRequest
		gotErr := httpapi.Decode(httptest.NewRequest("POST", "/", bytes.NewReader([]byte(body))), &got)
		var want refreshRequest
		wantErr := error(nil)
		if len(bytes.TrimSpace([]byte(body))) > 0 {
			wantErr = json.Unmarshal([]byte(body), &want)
		}
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%q) = %+v, %v; encoding/json: %+v, %v", body, got, gotErr, want, wantErr)
		}
	}
}

// A session JWT this process has verified is read from the body as the
// verified cache's own copy (no copy of two kilobytes per check); any
// other JWT, and a token field holding the same text, is copied as
// before. Either way the request says exactly what the body says.
func TestBackendRequestInternsVerifiedJWT(t *testing.T) {
	t.Parallel()
	v := &verifiedJWTs{}
	known := "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtIn0.c2lnbmF0dXJl"
	v.put(v.generation(), known, verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: time.Now().Add(time.Hour)}, time.Now())
	kept := v.items[known].token
	if kept != known {
		t.Fatalf("the remembered entry holds %q, want the token", kept)
	}
	// Read as BackendAuthenticate reads it, with the service's cache.
	h := Handlers{Sessions: &Service{verified: v}}
	decode := func(body string) backendAuthRequest {
		t.Helper()
		req, err := h.decodeBackendAuth(httptest.NewRequest("POST", "/", bytes.NewReader([]byte(body))))
		if err != nil {
			t.Fatalf("Decode(%s): %v", body, err)
		}
		return req
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

	if got := decode(`{"session_jwt":"` + known + `"}`); got.SessionJWT != known || !same(got.SessionJWT, kept) {
		t.Errorf("a verified JWT was read as %q (the cache's copy: %v)", got.SessionJWT, same(got.SessionJWT, kept))
	} else if c := got.credential(); c.JWT != known || c.known.entry != v.items[known] {
		t.Errorf("the credential does not carry what the cache held: %+v", c)
	}
	other := known + "x"
	if got := decode(`{"session_jwt":"` + other + `"}`); got.SessionJWT != other {
		t.Errorf("an unknown JWT was read as %q", got.SessionJWT)
	}
	if got := decode(`{"session_token":"` + known + `"}`); got.SessionToken != known || same(got.SessionToken, kept) || got.SessionJWT != "" {
		t.Errorf("a token field was read as %+v (the JWT cache's copy: %v)", got, same(got.SessionToken, kept))
	}
}

// What intern found while the request was read stands for the second
// lookup only while it is still what the cache holds: an invalidation since,
// or a token that is not the interned string, goes back to the map.
func TestKnownJWTStandsForTheLookup(t *testing.T) {
	t.Parallel()
	now := time.Now()
	token := "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtIn0.c2lnbmF0dXJl"
	fresh := func() (*verifiedJWTs, knownJWT) {
		v := &verifiedJWTs{}
		v.put(v.generation(), token, verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: now.Add(time.Hour)}, now)
		k := v.intern([]byte(token))
		if k.entry == nil || k.entry.sessionID != "s" {
			t.Fatalf("intern = %+v", k)
		}
		return v, k
	}

	// Found at intern, it is used as it is: with the map emptied behind
	// its back (as the size bound does), the check still finds it.
	v, k := fresh()
	v.items = nil
	if id, ok := v.get("p", k.entry.token, now, k); !ok || id != "s" {
		t.Errorf("get with a current known entry = %q, %v", id, ok)
	}
	// Its time claims and project still apply.
	if _, ok := v.get("q", k.entry.token, now, k); ok {
		t.Error("a known entry of another project was taken")
	}
	if _, ok := v.get("p", k.entry.token, now.Add(2*time.Hour), k); ok {
		t.Error("an expired known entry was taken")
	}

	// An invalidation between the read and the check forgets it.
	v, k = fresh()
	v.invalidate(changefeed.Event{Scope: changefeed.Project, Key: "p"})
	if _, ok := v.get("p", k.entry.token, now, k); ok {
		t.Error("a known entry outlived its project's invalidation")
	}
	// So does one of another project: the generation is the cache's.
	v, k = fresh()
	v.invalidate(changefeed.Event{Scope: changefeed.Project, Key: "other"})
	if id, ok := v.get("p", k.entry.token, now, k); !ok || id != "s" {
		t.Errorf("after another project's invalidation the map lookup failed: %q, %v", id, ok)
	}
	v.items = nil
	if _, ok := v.get("p", k.entry.token, now, k); ok {
		t.Error("a known entry was used after an invalidation")
	}

	// A token that is not the interned one (a body the fast reader
	// declined after interning a value) is looked up.
	v, k = fresh()
	if _, ok := v.get("p", "eyJ.other.token", now, k); ok {
		t.Error("the known entry of another token was taken")
	}
}

// Only compact JWTs are remembered: the request reader takes the bytes of
// a remembered one as checked.
func TestVerifiedKeepsCompactJWTsOnly(t *testing.T) {
	t.Parallel()
	v := &verifiedJWTs{}
	e := verifiedJWT{projectID: "p", sessionID: "s", sessionEnds: time.Now().Add(time.Hour)}
	for _, bad := range []string{"eyJ.a\n.b", "eyJ.a b.c", "eyJ.a\\.b", "eyJ.a=.b", "eyJ.é.b"} {
		v.put(v.generation(), bad, e, time.Now())
		if k := v.intern([]byte(bad)); k.entry != nil {
			t.Errorf("%q was remembered", bad)
		}
	}
	good := "eyJhbGc-_.AZaz09.x"
	v.put(v.generation(), good, e, time.Now())
	if k := v.intern([]byte(good)); k.entry == nil {
		t.Errorf("%q was not remembered", good)
	}
}
