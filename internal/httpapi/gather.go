package httpapi

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
)

// net/http writes an answer through a fixed 4 KB connection buffer, so an
// answer longer than that (a session check's is ~4.8 KB with its headers:
// session, member, organization and JWT) leaves in two write system calls,
// and on loopback or a fast LAN each costs about as much as the whole rest
// of the check. Gathering lets writeBody hold the connection's writes while
// it writes and flushes one answer, then send them in one call. It only
// ever holds inside writeBody, which always releases before it returns, so
// nothing can be left behind: streams, files and every other writer pass
// straight through.

// gatherMax bounds what one answer may hold; a longer one is sent as it
// comes (the syscall saved no longer matters beside the copying).
const gatherMax = 64 << 10

// gatherMin is the body length from which holding pays: a shorter answer
// and its headers fit the connection buffer and leave in one write anyway.
const gatherMin = 3 << 10

var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// gatherConn is an accepted connection whose writes writeBody can gather.
// An HTTP/1 connection is written by the one goroutine serving it, so the
// hold needs no lock; HTTP/2 answers are never held (see gatherFor).
type gatherConn struct {
	net.Conn
	held *[]byte // non-nil while holding
}

func (c *gatherConn) Write(p []byte) (int, error) {
	if c.held == nil {
		return c.Conn.Write(p)
	}
	if len(*c.held)+len(p) > gatherMax {
		if err := c.release(); err != nil {
			return 0, err
		}
		return c.Conn.Write(p)
	}
	*c.held = append(*c.held, p...)
	return len(p), nil
}

// hold starts gathering writes.
func (c *gatherConn) hold() {
	if c.held == nil {
		c.held = heldBufs.Get().(*[]byte)
	}
}

// release sends what was gathered in one write and stops gathering.
func (c *gatherConn) release() error {
	b := c.held
	if b == nil {
		return nil
	}
	c.held = nil
	var err error
	if len(*b) > 0 {
		_, err = c.Conn.Write(*b)
	}
	if cap(*b) <= gatherMax {
		*b = (*b)[:0]
		heldBufs.Put(b)
	}
	return err
}

// ReadFrom keeps sendfile for files (net/http looks for io.ReaderFrom on
// the connection).
func (c *gatherConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok && c.held == nil {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c}, r)
}

// CloseWrite keeps net/http's graceful close of a refused request.
func (c *gatherConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

type gatherListener struct{ net.Listener }

func (l gatherListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &gatherConn{Conn: c}, nil
}

type gatherKey struct{}

// Gather prepares srv to serve on ln with answers sent in one write: it
// returns the listener to serve on and sets srv.ConnContext.
func Gather(srv *http.Server, ln net.Listener) net.Listener {
	prev := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prev != nil {
			ctx = prev(ctx, c)
		}
		if gc, ok := c.(*gatherConn); ok {
			ctx = context.WithValue(ctx, gatherKey{}, gc)
		}
		return ctx
	}
	return gatherListener{ln}
}

// gatherFor is r's connection when its answer can be gathered: HTTP/1
// only, since HTTP/2 writes frames from its own goroutine.
func gatherFor(r *http.Request) *gatherConn {
	if r == nil || r.ProtoMajor != 1 {
		return nil
	}
	gc, _ := r.Context().Value(gatherKey{}).(*gatherConn)
	return gc
}
