package notify

import (
	"context"
	"net"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// Connection reuse. The outbox hands SMTP its due mail a batch at a time,
// and under load batches come many times a second with one or two messages
// each: dialing for every batch cost a TCP connect, the greeting, EHLO,
// STARTTLS with a TLS handshake, and AUTH (half a dozen round trips to a
// provider) for each one or two messages, and providers limit connection
// rates. A connection that delivered its batch cleanly waits for the next
// one instead, as MTAs and mail libraries with pools do.
const (
	smtpIdleMax  = 8                // idle connections kept (the outbox's delivery workers)
	smtpIdleFor  = 30 * time.Second // an idle connection older than this is closed, not reused
	smtpReuseMax = 100              // messages over one connection, then QUIT (servers cap them)
	smtpQuitWait = 2 * time.Second  // how long a QUIT may take before the connection is just closed
)

// smtpConn is a connection that has been greeted, secured and logged in.
type smtpConn struct {
	client *gomail.Client // go-mail's per-connection state (auth, TLS policy)
	smtp   *smtp.Client
	conn   net.Conn
	// stop detaches the connection from the context of its current use;
	// false means that context ended and closed the connection.
	stop      func() bool
	sent      int
	idleSince time.Time
}

// smtpPool holds the idle connections of one SMTP server.
type smtpPool struct {
	mu     sync.Mutex
	idle   []*smtpConn // most recently used last
	closed bool
}

// use binds pc to ctx for one batch: the connection is closed if ctx ends
// while a step is in progress (go-mail bounds each step only by its own
// timeout).
func (pc *smtpConn) use(ctx context.Context) {
	conn := pc.conn
	pc.stop = context.AfterFunc(ctx, func() { _ = conn.Close() })
}

// take returns the most recently used idle connection, or nil. Expired
// ones are closed on the way (in the background, so a silent server cannot
// hold up this send).
func (p *smtpPool) take(now time.Time) *smtpConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var expired []*smtpConn
	kept := p.idle[:0]
	for _, pc := range p.idle {
		if now.Sub(pc.idleSince) > smtpIdleFor {
			expired = append(expired, pc)
		} else {
			kept = append(kept, pc)
		}
	}
	clear(p.idle[len(kept):])
	p.idle = kept
	if len(expired) > 0 {
		go quitAll(expired)
	}
	if len(p.idle) == 0 {
		return nil
	}
	pc := p.idle[len(p.idle)-1]
	p.idle[len(p.idle)-1] = nil
	p.idle = p.idle[:len(p.idle)-1]
	return pc
}

// release ends pc's use for a batch of n messages: it waits for the next
// batch if the batch went through cleanly and there is room, and is closed
// otherwise.
func (p *smtpPool) release(pc *smtpConn, n int, clean bool, now time.Time) {
	if !pc.stop() {
		return // the context ended and closed it
	}
	pc.sent += n
	if clean && pc.sent < smtpReuseMax {
		p.mu.Lock()
		if !p.closed && len(p.idle) < smtpIdleMax {
			pc.idleSince = now
			p.idle = append(p.idle, pc)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
	quit(pc)
}

// close QUITs the idle connections, and release closes any still in use
// when its batch ends.
func (p *smtpPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	quitAll(idle)
}

func quitAll(pcs []*smtpConn) {
	for _, pc := range pcs {
		quit(pc)
	}
}

// quit says goodbye within smtpQuitWait and closes the connection.
func quit(pc *smtpConn) {
	_ = pc.conn.SetDeadline(time.Now().Add(smtpQuitWait))
	_ = pc.client.CloseWithSMTPClient(pc.smtp)
	_ = pc.conn.Close()
}
