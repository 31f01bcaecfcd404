package flowtoken_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/flowtoken"
)

// A binding is held only by a request carrying the very cookie the start
// made: not by one without it, with another start's, or with a forged
// value; and a state that kept no binding ("") is held by nobody. The
// cookie carries the flow's attributes, the hash is not its value, and
// each start makes a new one.
func TestBindingHeld(t *testing.T) {
	t.Parallel()
	b := flowtoken.Binding{Name: "latchkey_test_state", Path: "/cb/", Secure: true, SameSite: http.SameSiteNoneMode,
		TTL: 15 * time.Minute}
	cookie, hash := b.NewBinding()
	other, otherHash := b.NewBinding()
	if cookie.Name != "__Host-latchkey_test_state" || cookie.Path != "/" || cookie.Domain != "" || !cookie.HttpOnly || !cookie.Secure ||
		cookie.SameSite != http.SameSiteNoneMode || cookie.MaxAge != 900 || len(cookie.Value) < 32 {
		t.Fatalf("cookie %+v", cookie)
	}
	if hash == cookie.Value || hash == "" || other.Value == cookie.Value || otherHash == hash {
		t.Fatalf("bindings %q/%q and %q/%q", cookie.Value, hash, other.Value, otherHash)
	}
	with := func(cs ...*http.Cookie) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/cb/x", nil)
		for _, c := range cs {
			r.AddCookie(c)
		}
		return r
	}
	for name, c := range map[string]struct {
		r    *http.Request
		hash string
		want bool
	}{
		"its cookie":      {with(cookie), hash, true},
		"no cookie":       {with(), hash, false},
		"another start's": {with(other), hash, false},
		"forged":          {with(&http.Cookie{Name: cookie.Name, Value: hash}), hash, false},
		// A cookie a sibling subdomain can set (no prefix), holding a
		// value the state was bound to, does not count.
		"without the prefix":  {with(&http.Cookie{Name: b.Name, Value: cookie.Value}), hash, false},
		"another flow's name": {with(&http.Cookie{Name: "other", Value: cookie.Value}), hash, false},
		"nothing bound":       {with(&http.Cookie{Name: cookie.Name, Value: ""}), "", false},
	} {
		if got := b.Held(c.r, c.hash); got != c.want {
			t.Errorf("%s: held %v, want %v", name, got, c.want)
		}
	}
	if rm := b.Removal(); rm.Name != cookie.Name || rm.Path != "/" || rm.MaxAge >= 0 || rm.Value != "" {
		t.Fatalf("removal %+v", rm)
	}

	// Over plain http browsers refuse the prefix: the plain name, scoped
	// to the callback's path.
	b.Secure, b.SameSite = false, http.SameSiteLaxMode
	plain, plainHash := b.NewBinding()
	if plain.Name != b.Name || plain.Path != "/cb/" || plain.Secure || !b.Held(with(plain), plainHash) {
		t.Fatalf("plain http cookie %+v", plain)
	}
	if rm := b.Removal(); rm.Name != b.Name || rm.Path != "/cb/" || rm.MaxAge >= 0 {
		t.Fatalf("plain http removal %+v", rm)
	}
}

// A start under another host name than the base URL's goes to the same
// start there once, with its query as it came; on the base URL's host (any
// port, any case) or already sent, it stays.
func TestToCallbackHost(t *testing.T) {
	t.Parallel()
	const base = "http://localhost:8080"
	for _, c := range []struct{ target, want string }{
		{"http://127.0.0.1:8080/v1/public/sso/start?b=2&a=1", base + "/v1/public/sso/start?b=2&a=1&latchkey_callback_host=1"},
		{"http://127.0.0.1:8080/start", base + "/start?latchkey_callback_host=1"},
		{"http://LOCALHOST:9999/start?a=1", ""},
		{"http://127.0.0.1:8080/start?a=1&latchkey_callback_host=1", ""},
	} {
		got, ok := flowtoken.ToCallbackHost(base, httptest.NewRequest(http.MethodGet, c.target, nil))
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: %q %v, want %q", c.target, got, ok, c.want)
		}
	}
	if _, ok := flowtoken.ToCallbackHost("", httptest.NewRequest(http.MethodGet, "http://x/start", nil)); ok {
		t.Error("moved with no base URL")
	}
	if flowtoken.PathOf("https://h/auth/v1/cb") != "/auth/v1/cb" || flowtoken.PathOf("https://h") != "/" {
		t.Errorf("PathOf: %q %q", flowtoken.PathOf("https://h/auth/v1/cb"), flowtoken.PathOf("https://h"))
	}
}
