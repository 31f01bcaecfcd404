package storetest

import (
	"bytes"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// Proxy is a TCP proxy on loopback between the app and PostgreSQL, for
// tests of what a network fault does: it passes traffic, black-holes it
// (accepts connections and reads, but forwards nothing either way, as a
// silent partition or a hung server does) or cuts every connection (as a
// restarted server or a killed backend does). The faults are real ones at
// the TCP level: the driver sees a socket that never answers or one
// that closes, not a mock of any code of ours.
type Proxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	mu    sync.Mutex
	hole  bool          // black-holing: nothing is forwarded while set
	heal  chan struct{} // closed when hole ends
	conns map[net.Conn]struct{}
	cutOn []byte // a client message holding this cuts its connection, once
}

// NewProxy listens on a loopback port and forwards to target (host:port).
// Every connection is closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("storetest: proxy: %v", err)
	}
	p := &Proxy{t: t, ln: ln, target: target, conns: map[net.Conn]struct{}{}, heal: make(chan struct{})}
	close(p.heal)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.Pass()
		p.Cut()
	})
	return p
}

// PostgresThrough returns the DSN of a fresh, empty schema (as
// PostgresSchema) of the server named by LATCHKEY_TEST_POSTGRES_DSN whose
// host is a new Proxy in front of that server, the same DSN without the
// proxy, and the proxy. It skips the test when the variable is not set.
func PostgresThrough(t testing.TB) (proxied, direct string, p *Proxy) {
	t.Helper()
	direct = postgresDSN(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatalf("storetest: parse dsn: %v", err)
	}
	p = NewProxy(t, u.Host)
	u.Host = p.Addr()
	return u.String(), direct, p
}

// PairThrough is EachPair's PostgreSQL pair with a's connections going
// through a Proxy (returned) and b's straight to the server: a replica
// cut off from the database, and one that still reaches it. Both are
// migrated. It skips the test when LATCHKEY_TEST_POSTGRES_DSN is not set.
func PairThrough(t testing.TB) (a, b *store.DB, p *Proxy) {
	t.Helper()
	proxied, direct, p := PostgresThrough(t)
	return open(t, proxied), open(t, direct), p
}

// PairTextThrough is PairThrough with a's statements always sent as
// text (pgx's describe_exec mode: no statement prepared once and then
// named only by its handle), so that Proxy.CutOn can tell which statement
// it cuts, whichever ran before.
func PairTextThrough(t testing.TB) (a, b *store.DB, p *Proxy) {
	t.Helper()
	proxied, direct, p := PostgresThrough(t)
	u, err := url.Parse(proxied)
	if err != nil {
		t.Fatalf("storetest: parse dsn: %v", err)
	}
	q := u.Query()
	q.Set("default_query_exec_mode", "describe_exec")
	u.RawQuery = q.Encode()
	return open(t, u.String()), open(t, direct), p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// BlackHole stops forwarding: connections, old and new, are accepted and
// read but get no answer, until Pass or Cut.
func (p *Proxy) BlackHole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.hole {
		p.hole, p.heal = true, make(chan struct{})
	}
}

// Pass forwards again; what was held while black-holing is delivered.
func (p *Proxy) Pass() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hole {
		p.hole = false
		close(p.heal)
	}
}

// Cut closes every open connection, both sides; new ones are accepted.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// CutOn arms a one-shot fault: the first client message holding text (a
// statement's SQL, say) is not forwarded, and its connection is closed
// both ways, as if the server died right after it was sent.
func (p *Proxy) CutOn(text string) {
	p.mu.Lock()
	p.cutOn = []byte(text)
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

func (p *Proxy) serve(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	p.mu.Unlock()
	closeBoth := func() {
		p.mu.Lock()
		delete(p.conns, client)
		delete(p.conns, server)
		p.mu.Unlock()
		client.Close()
		server.Close()
	}
	go func() { p.pipe(server, client, false); closeBoth() }()
	p.pipe(client, server, true)
	closeBoth()
}

// pipe copies from src to dst, holding what it read while black-holing.
func (p *Proxy) pipe(src, dst net.Conn, fromClient bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			heal := p.heal
			cut := fromClient && len(p.cutOn) > 0 && bytes.Contains(buf[:n], p.cutOn)
			if cut {
				p.cutOn = nil
			}
			p.mu.Unlock()
			if cut {
				return
			}
			<-heal
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
