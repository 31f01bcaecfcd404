package outbound

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// countingServer serves h on a listener at host (a loopback address),
// counting the connections it accepts: a refused fetch must not even
// connect. tls makes it an https server whose certificate g trusts.
func countingServer(t *testing.T, host string, tls bool, h http.Handler) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = ln
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &conns
}

// trust makes g's transport trust srv's test certificate, as a system
// root would a real identity provider's.
func trust(g *Guard, srv *httptest.Server) {
	tr := g.client.Transport.(guardTransport).next.(*http.Transport)
	tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
}

func ok(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }

func mustAllow(t *testing.T, list string) Allowlist {
	t.Helper()
	a, err := ParseAllowlist(list)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Without an allowlist, every spelling of this machine is refused at
// connect time: the audit's 127.0.0.1, localhost, [::ffff:127.0.0.1] and
// 0.0.0.0 (which Linux connects to loopback). https, so the scheme rule
// does not decide it before the dialer.
func TestGuardRefusesLoopback(t *testing.T) {
	srv, conns := countingServer(t, "127.0.0.1", true, http.HandlerFunc(ok))
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	g := New(nil)
	trust(g, srv)
	for _, host := range []string{"127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "0.0.0.0"} {
		u := "https://" + host + ":" + strconv.Itoa(port) + "/"
		res, err := g.Client().Get(u)
		if err == nil {
			res.Body.Close()
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("GET %s: %v, want refused", u, err)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the server accepted %d connections", n)
	}

	// Allowlisted, loopback is reached (0.0.0.0 is not loopback, and stays
	// refused).
	g = New(mustAllow(t, Loopback))
	trust(g, srv)
	res, err := g.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("allowlisted: %q", body)
	}
	if _, err := g.Client().Get("https://0.0.0.0:" + strconv.Itoa(port) + "/"); !errors.Is(err, ErrRefused) {
		t.Fatalf("0.0.0.0 with loopback allowlisted: %v", err)
	}
}

// A redirect's next hop is dialled through the same check: allowlisting
// 127.0.0.1 does not let a redirect reach 127.0.0.2.
func TestGuardChecksEveryRedirectHop(t *testing.T) {
	inner, innerConns := countingServer(t, "127.0.0.2", false, http.HandlerFunc(ok))
	outer, _ := countingServer(t, "127.0.0.1", false, http.RedirectHandler(inner.URL+"/secret", http.StatusFound))
	g := New(mustAllow(t, "127.0.0.1/32"))
	if _, err := g.Client().Get(outer.URL); !errors.Is(err, ErrRefused) {
		t.Fatalf("redirect to 127.0.0.2: %v", err)
	}
	if n := innerConns.Load(); n != 0 {
		t.Fatalf("the redirect's target accepted %d connections", n)
	}
}

// A redirect from https to http is refused, even to an allowlisted host,
// and so is a chain longer than maxRedirects.
func TestGuardRedirectRules(t *testing.T) {
	plain, plainConns := countingServer(t, "127.0.0.1", false, http.HandlerFunc(ok))
	secure, _ := countingServer(t, "127.0.0.1", true, http.RedirectHandler(plain.URL+"/", http.StatusFound))
	g := New(mustAllow(t, Loopback))
	trust(g, secure)
	if _, err := g.Client().Get(secure.URL); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "https to http") {
		t.Fatalf("https to http: %v", err)
	}
	if n := plainConns.Load(); n != 0 {
		t.Fatalf("the http target accepted %d connections", n)
	}

	var hops atomic.Int32
	loop, _ := countingServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		http.Redirect(w, r, "/again", http.StatusFound)
	}))
	if _, err := g.Client().Get(loop.URL); !errors.Is(err, ErrRefused) || hops.Load() != maxRedirects+1 {
		t.Fatalf("redirect loop: %d requests, %v", hops.Load(), err)
	}
}

// Plain http to a public host is refused before anything is dialled.
func TestGuardRefusesPlainHTTP(t *testing.T) {
	g := New(mustAllow(t, Loopback))
	for _, u := range []string{"http://8.8.8.8/", "http://idp.example.com/metadata"} {
		if _, err := g.Client().Get(u); !errors.Is(err, ErrRefused) {
			t.Errorf("GET %s: %v, want refused", u, err)
		}
	}
}

// A body over MaxBody is an error, whether its length is announced or
// found while reading; a body of exactly MaxBody is read whole.
func TestGuardCapsBodies(t *testing.T) {
	srv, _ := countingServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := MaxBody
		if r.URL.Path != "/exact" {
			n++
		}
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		_, _ = w.Write([]byte(strings.Repeat("a", n)))
	}))
	g := New(mustAllow(t, Loopback))
	read := func(path string) (int, error) {
		res, err := g.Client().Get(srv.URL + path)
		if err != nil {
			return 0, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return len(b), err
	}
	if n, err := read("/exact"); err != nil || n != MaxBody {
		t.Fatalf("exact: %d %v", n, err)
	}
	if _, err := read("/announced"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("announced: %v", err)
	}
	if _, err := read("/chunked"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("chunked: %v", err)
	}
}
