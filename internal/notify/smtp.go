package notify

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"

	"github.com/latchkey/latchkey/internal/ids"
)

// Default ports: 587 is message submission with STARTTLS (RFC 6409), 465 is
// submission over implicit TLS (RFC 8314).
const (
	defaultSubmissionPort  = 587
	defaultImplicitTLSPort = 465
	// stepTimeout bounds each step of a delivery (dial, each SMTP command),
	// so a silent server cannot hold a caller without a deadline forever.
	stepTimeout = 30 * time.Second
)

// SMTP delivers mail through an SMTP submission server. A connection that
// delivered a batch cleanly is kept for the next one for up to smtpIdleFor
// (see smtpPool); Close ends them.
type SMTP struct {
	host        string
	port        int
	implicitTLS bool    // smtps://: TLS from the first byte
	tls         tlsMode // smtp:// only: how STARTTLS is used
	user        string
	pass        string
	from        *mail.Address
	rootCAs     *x509.CertPool // nil means the system roots; tests trust their own CA
	pool        smtpPool
	now         func() time.Time // the clock of idle expiry; nil is time.Now (tests set it)
}

func (s *SMTP) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// Close QUITs the idle connections. A batch being sent closes its own
// connection when it is done.
func (s *SMTP) Close() error {
	s.pool.close()
	return nil
}

// tlsMode is how an smtp:// connection uses STARTTLS.
type tlsMode string

const (
	// tlsRequired refuses to send unless the server offers STARTTLS and the
	// handshake verifies: the default, so login links and codes never cross
	// the network in clear.
	tlsRequired tlsMode = "required"
	// tlsOpportunistic uses STARTTLS when offered: allowed only to a
	// loopback host (a local relay), and the default there.
	tlsOpportunistic tlsMode = "opportunistic"
	// tlsNone sends in clear: only when the operator says so explicitly.
	tlsNone tlsMode = "none"
)

// NewSMTP configures a mailer from LATCHKEY_SMTP_URL and LATCHKEY_EMAIL_FROM.
//
// rawURL is smtps://[user[:pass]@]host[:port] for implicit TLS (port 465 by
// default) or smtp://[user[:pass]@]host[:port][?tls=required|none] (port 587
// by default). smtp:// requires STARTTLS unless the host is a loopback
// address (then STARTTLS is used when offered) or tls=none says to send in
// clear; tls=none with a password is refused for a remote host, since the
// password would cross the network in clear. User and password are
// URL-decoded; AUTH is attempted only when a user is given. Errors never
// contain the password.
func NewSMTP(rawURL, from string) (*SMTP, error) {
	s, err := parseSMTPURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("notify: smtp: LATCHKEY_SMTP_URL: %w", err)
	}
	addr, err := parseFrom(from)
	if err != nil {
		return nil, fmt.Errorf("notify: smtp: %w", err)
	}
	s.from = addr
	return s, nil
}

// CheckEmailFrom is NewSMTP's check of LATCHKEY_EMAIL_FROM, for
// config.Validate: the commands that never build a mailer (migrate, the
// CLI) must refuse the sender serve would refuse, before anything is
// written.
func CheckEmailFrom(from string) error {
	_, err := parseFrom(from)
	return err
}

func parseFrom(from string) (*mail.Address, error) {
	addr, err := mail.ParseAddress(strings.TrimSpace(from))
	if err != nil {
		return nil, fmt.Errorf("LATCHKEY_EMAIL_FROM %q: %w", from, err)
	}
	return addr, nil
}

// CheckSMTPURL reports why rawURL is not a LATCHKEY_SMTP_URL that NewSMTP
// accepts, or nil. config.Validate runs before NewSMTP and calls this so
// that there is one parser: a second, stricter one refused the passwords
// with unescaped '/', '?' or '#' that parseSMTPURL forgives, and a looser
// one would let through URLs that fail only later. The error names
// LATCHKEY_SMTP_URL and never contains the password.
func CheckSMTPURL(rawURL string) error {
	if _, err := parseSMTPURL(rawURL); err != nil {
		return fmt.Errorf("LATCHKEY_SMTP_URL: %w", err)
	}
	return nil
}

var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// parseSMTPURL splits off the user info by hand before calling url.Parse,
// because url.Parse quotes the whole input (password included) in its
// errors, and operators often paste passwords with unescaped '/', '?' or '#'.
func parseSMTPURL(raw string) (*SMTP, error) {
	raw = strings.TrimSpace(raw)
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return nil, errors.New("want smtp://[user:pass@]host[:port] or smtps://[user:pass@]host[:port]")
	}
	s := &SMTP{}
	switch strings.ToLower(scheme) {
	case "smtp":
		s.port = defaultSubmissionPort
	case "smtps":
		s.port = defaultImplicitTLSPort
		s.implicitTLS = true
	default:
		if !schemeRE.MatchString(scheme) {
			return nil, errors.New("invalid scheme (want smtp or smtps)")
		}
		return nil, fmt.Errorf("unsupported scheme %q (want smtp or smtps)", scheme)
	}

	// A host never contains '@', so the last one ends the user info even when
	// the password holds characters that should have been escaped.
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		userinfo := rest[:at]
		rest = rest[at+1:]
		user, pass, _ := strings.Cut(userinfo, ":")
		var err error
		if s.user, err = url.PathUnescape(user); err != nil {
			return nil, errors.New("user name has invalid percent-encoding")
		}
		if s.pass, err = url.PathUnescape(pass); err != nil {
			return nil, errors.New("password has invalid percent-encoding")
		}
		if s.user == "" && s.pass != "" {
			return nil, errors.New("password given without a user name")
		}
	}

	u, err := url.Parse(strings.ToLower(scheme) + "://" + rest)
	if err != nil {
		return nil, err // safe to show: the user info was removed above
	}
	s.host = u.Hostname()
	if s.host == "" {
		return nil, errors.New("missing host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("invalid port %q", p)
		}
		s.port = n
	}
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("unexpected path %q", u.Path)
	}
	if u.Fragment != "" {
		return nil, errors.New("unexpected fragment")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	loopback := isLoopback(s.host)
	s.tls = tlsRequired
	if loopback {
		s.tls = tlsOpportunistic
	}
	for k, vs := range q {
		if k != "tls" {
			return nil, fmt.Errorf("unknown parameter %q (only tls=required or tls=none)", k)
		}
		if len(vs) != 1 {
			return nil, errors.New("parameter tls given more than once")
		}
		switch m := tlsMode(vs[0]); m {
		case tlsRequired, tlsNone:
			s.tls = m
		case tlsOpportunistic:
			if !loopback {
				return nil, errors.New("tls=opportunistic is allowed only to a loopback host: a network attacker " +
					"could strip STARTTLS (use tls=required, smtps://, or tls=none if you really mean clear text)")
			}
		default:
			return nil, fmt.Errorf("tls=%q: want required or none", vs[0])
		}
	}
	if s.implicitTLS {
		s.tls = tlsRequired // TLS from the first byte; the parameter changes nothing
	}
	if s.tls == tlsNone && s.pass != "" && !loopback {
		return nil, errors.New("tls=none with a password to a remote host would send the password in clear")
	}
	return s, nil
}

// isLoopback reports whether host is localhost or a loopback IP literal.
// Names are not resolved: a name that happens to resolve to 127.0.0.1
// today is still treated as remote.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// String describes the server without the password, so a configured mailer
// can be logged safely (fmt uses it for %v and %s).
func (s *SMTP) String() string {
	scheme, user, tlsq := "smtp", "", "?tls="+string(s.tls)
	if s.implicitTLS {
		scheme, tlsq = "smtps", ""
	}
	if s.user != "" {
		user = url.User(s.user).String() + "@"
	}
	return scheme + "://" + user + net.JoinHostPort(s.host, strconv.Itoa(s.port)) + tlsq
}

// Send delivers m as multipart/alternative (text first, HTML preferred by
// clients that can show it). It returns when the server has accepted the
// message, the context ends, or one network step exceeds its timeout.
func (s *SMTP) Send(ctx context.Context, m Email) error { return s.SendAll(ctx, []Email{m})[0] }

// SendAll delivers ms over one connection (an idle one kept from an
// earlier batch, or one dial, greeting, STARTTLS and login for the lot: the
// outbox hands its due mail over in batches) and returns each message's
// result: a message the server refuses fails alone, a connection that fails
// fails the messages it did not deliver.
func (s *SMTP) SendAll(ctx context.Context, ms []Email) []error {
	errs := make([]error, len(ms))
	msgs := make([]*gomail.Msg, 0, len(ms))
	index := make([]int, 0, len(ms)) // msgs[i] is ms[index[i]]
	for i, m := range ms {
		msg, err := s.message(m)
		if err != nil {
			errs[i] = fmt.Errorf("notify: smtp: %w", err)
			continue
		}
		msgs, index = append(msgs, msg), append(index, i)
	}
	if len(msgs) == 0 {
		return errs
	}
	fail := func(err error) []error {
		for _, i := range index {
			errs[i] = err
		}
		return errs
	}
	if ctx.Err() != nil {
		return fail(fmt.Errorf("notify: smtp: %w", context.Cause(ctx)))
	}
	pc := s.pool.take(s.clock())
	if pc != nil {
		pc.use(ctx)
		if err := pc.smtp.Noop(); err != nil {
			// The server closed the idle connection (or it died): nothing
			// went over it, so a new one carries the batch.
			pc.stop()
			_ = pc.conn.Close()
			pc = nil
		}
	}
	if pc == nil {
		var err error
		if pc, err = s.dial(ctx); err != nil {
			return fail(err)
		}
	}
	refused, broken, tried := deliver(pc, msgs)
	// Kept for the next batch if this one went through cleanly, QUIT
	// otherwise: the messages the server accepted are delivered whatever
	// QUIT says.
	clean := broken == nil
	for j, err := range refused {
		if err != nil {
			errs[index[j]], clean = s.refusal(ctx, err, ms[index[j]]), false
		}
	}
	s.pool.release(pc, len(msgs), clean, s.clock())
	if broken != nil {
		// The message in progress, if any, takes the failure (after a
		// refusal whose RSET failed, the refusal is charged instead);
		// the server never saw the ones after it. When nothing at all
		// was said, the first one is charged: a round in which nothing
		// is delivered or charged could repeat for ever.
		firstUntried := max(tried, 1)
		for j := len(refused); j < len(msgs); j++ {
			// The broken reply may be to the message in progress, or
			// quote any of the batch's.
			err := s.sendError(ctx, broken, ms...)
			if j >= firstUntried {
				err = fmt.Errorf("%w (%w)", ErrNotAttempted, err)
			}
			errs[index[j]] = err
		}
	}
	return errs
}

// deliver sends msgs over pc, one SMTP transaction each. It returns the
// server's refusal of each message it got to (nil: accepted) and, when the
// connection failed, why: that fails the messages from len(refused) on, of
// which the server saw only those before msgs[tried] (tried is how many
// messages were begun). A refusal of the sender or a recipient ends the
// transaction with RSET, and the next message goes out over the same
// connection; any other failure leaves the connection in an unknown state.
//
// go-mail's own sender adds a NOOP before each batch and an RSET after each
// message. A transaction is over once the server answers its data, and
// SendAll checks only a reused connection, so those were two round trips
// of a message's six for nothing.
func deliver(pc *smtpConn, msgs []*gomail.Msg) (refused []error, broken error, tried int) {
	for i, msg := range msgs {
		if err := pc.smtp.UpdateDeadline(stepTimeout); err != nil {
			return refused, err, i
		}
		from, rcpts, err := envelope(msg)
		if err != nil {
			refused = append(refused, err) // nothing was said to the server
			continue
		}
		err = deliverOne(pc.smtp, from, rcpts, msg)
		var reply *textproto.Error
		switch {
		case err == nil:
			refused = append(refused, nil)
		case errors.As(err, &reply):
			refused = append(refused, err)
			if err := pc.smtp.Reset(); err != nil {
				return refused, err, i + 1
			}
		default:
			return refused, err, i + 1
		}
	}
	return refused, nil, len(msgs)
}

// envelope is the sender and recipients msg's headers name.
func envelope(msg *gomail.Msg) (string, []string, error) {
	from, err := msg.GetSender(false)
	if err != nil {
		return "", nil, err
	}
	rcpts, err := msg.GetRecipients()
	return from, rcpts, err
}

// deliverOne is one message's transaction: MAIL, RCPT for each recipient,
// DATA. A *textproto.Error is the server's refusal (wrapped in
// undeliverable when it refuses this message for good, see ownRefusal);
// any other error is the connection's.
func deliverOne(c *smtp.Client, from string, rcpts []string, msg *gomail.Msg) error {
	if err := c.Mail(from); err != nil {
		// Our sender, the same for every message: a refusal here is the
		// configuration's, whatever its code.
		return err
	}
	for _, rcpt := range rcpts {
		if err := c.Rcpt(rcpt); err != nil {
			var reply *textproto.Error
			if errors.As(err, &reply) && reply.Code == 552 {
				// RFC 5321 4.5.3.1.10: a 552 to RCPT (too many recipients,
				// a mailbox over its quota) is to be taken as the temporary
				// 452, not as the message's permanent refusal.
				return fmt.Errorf("%w (taken as temporary, RFC 5321 4.5.3.1.10)", err)
			}
			return ownRefusal(err, from, rcpt)
		}
	}
	w, err := c.Data()
	if err != nil {
		return ownRefusal(err, from, rcpts...)
	}
	if _, err := msg.WriteTo(w); err != nil {
		return err
	}
	return ownRefusal(w.Close(), from, rcpts...)
}

// undeliverable marks a server's reply that refuses one message for good
// (see ownRefusal); refusal makes it ErrUndeliverable.
type undeliverable struct{ err error }

func (e undeliverable) Error() string { return e.err.Error() }
func (e undeliverable) Unwrap() error { return e.err }

// enhancedCodeRE is an RFC 3463 enhanced status code leading a reply's
// text (RFC 2034): class.subject.detail.
var enhancedCodeRE = regexp.MustCompile(`^([245])\.([0-9]{1,3})\.([0-9]{1,3})(?:[ \t]|$)`)

// ownRefusal wraps err in undeliverable when it is a reply to RCPT or DATA
// that refuses this message for good, and returns it as it is otherwise:
// a refusal that is not clearly the message's own is retried (the queue
// bounds the attempts), because dropping it would lose the invitation,
// reset or login link it carries, and a submission server refuses a
// client it will not relay for (a bad credential, an unlisted IP) at RCPT
// with a 5xx: Postfix's "554 5.7.1 Relay access denied", Gmail's
// "550 5.7.0 Mail relay denied". Treated as the recipient's, one bad
// credential would empty the whole queue.
//
// The reply code alone cannot tell the two apart; the enhanced status
// code (RFC 3463) can, and only these say the message or its mailbox is
// at fault:
//
//   - 5.1.x, addressing: bad or ambiguous mailbox, bad destination
//     system, mailbox moved, null MX (5.1.10, RFC 7505). Not 5.1.7 and
//     5.1.8, bad sender address: our From, which is configuration.
//   - 5.2.x, mailbox status: disabled, message too long for the mailbox,
//     list expansion. Not 5.2.2, mailbox full, which RFC 3463 calls
//     persistent transient (and RFC 5321 has the 552 to RCPT retried).
//   - 5.3.4, message too big for the system: the same message fails the
//     same way; the rest of 5.3.x is the server's state or features.
//   - 5.6.x, media: the content itself cannot be carried.
//
// Everything else is retried: 5.7.x (security and policy: relaying,
// authentication, our domain's SPF or DMARC), 5.4.x (routing), 5.5.x
// (protocol), the other 5.3.x, and a 5xx with no enhanced code at all.
//
// The stage is deliverOne's: a refusal of MAIL never comes here, and here
// the reply is to the RCPT of rcpts[0] or to the DATA of all of rcpts.
// One code is unspecific about whose address it blames: 5.1.0, "other
// address status", which Postfix gives our sender when it delays its
// MAIL FROM restrictions to RCPT (smtpd_delay_reject, on by default:
// "550 5.1.0 <from>: Sender address rejected: User unknown"). A 5.1.0
// that quotes our envelope sender, <from>, and none of rcpts is taken as
// our sender's and retried; any other is the recipient's. The rest of the
// reply's text decides nothing: a recipient's "550 5.1.1 <sender@x>:
// Recipient address rejected" was once kept all day for saying "sender".
func ownRefusal(err error, from string, rcpts ...string) error {
	var reply *textproto.Error
	if err == nil || !errors.As(err, &reply) || reply.Code < 500 || reply.Code > 599 {
		return err
	}
	first, _, _ := strings.Cut(reply.Msg, "\n")
	m := enhancedCodeRE.FindStringSubmatch(first)
	if m == nil || m[1] != "5" {
		return err
	}
	subject, _ := strconv.Atoi(m[2])
	detail, _ := strconv.Atoi(m[3])
	switch {
	case subject == 1 && detail == 0 && blamesSender(reply.Msg, from, rcpts):
		return err
	case subject == 1 && detail != 7 && detail != 8,
		subject == 2 && detail != 2,
		subject == 3 && detail == 4,
		subject == 6:
		return undeliverable{err}
	}
	return err
}

// blamesSender reports whether msg, a reply's text, quotes the envelope
// sender from as <from> and none of rcpts (the addresses as the envelope
// gives them, in angle brackets; compared case-insensitively, as servers
// echo them in their own case).
func blamesSender(msg, from string, rcpts []string) bool {
	msg = strings.ToLower(msg)
	quotes := func(addr string) bool {
		addr = strings.Trim(addr, "<>")
		return addr != "" && strings.Contains(msg, "<"+strings.ToLower(addr)+">")
	}
	return quotes(from) && !slices.ContainsFunc(rcpts, quotes)
}

// dial opens a connection, bound to ctx until it is released.
func (s *SMTP) dial(ctx context.Context) (*smtpConn, error) {
	pc := &smtpConn{}
	c, err := s.client(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("notify: smtp: %s", s.redact(err))
	}
	pc.client = c
	if pc.smtp, err = c.DialToSMTPClientWithContext(ctx); err != nil {
		if pc.conn != nil {
			pc.stop()
			_ = pc.conn.Close()
		}
		return nil, s.sendError(ctx, err)
	}
	return pc, nil
}

// client returns a go-mail client for one connection. A fresh client per
// connection: go-mail's Client mutates its auth state while sending, so
// sharing one across goroutines would race.
func (s *SMTP) client(ctx context.Context, pc *smtpConn) (*gomail.Client, error) {
	tlsConf := &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12, RootCAs: s.rootCAs}
	opts := []gomail.Option{
		gomail.WithPort(s.port),
		// go-mail's timeout bounds each network step; the caller's deadline
		// bounds the whole exchange through dialFunc, and must be the one to
		// fire first so the error says why.
		gomail.WithTimeout(stepTimeout),
		gomail.WithTLSConfig(tlsConf),
		gomail.WithDialContextFunc(s.dialFunc(ctx, tlsConf, pc)),
	}
	switch {
	case s.implicitTLS:
		opts = append(opts, gomail.WithSSL())
	case s.tls == tlsRequired:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case s.tls == tlsNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.user != "" {
		// PLAIN and LOGIN are what submission servers offer; go-mail refuses
		// to send them over a cleartext connection to anything but loopback,
		// so a missing STARTTLS cannot leak the password.
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(s.user), gomail.WithPassword(s.pass))
	}
	return gomail.NewClient(s.host, opts...)
}

// sendError words a delivery failure, with the password and the secrets
// of the messages it may quote (ms) redacted.
func (s *SMTP) sendError(ctx context.Context, err error, ms ...Email) error {
	if ctx.Err() != nil {
		// Keep the context's error in the chain so callers can tell a
		// timeout from a refusal with errors.Is.
		return fmt.Errorf("notify: smtp: %s:%d: %w (%s)", s.host, s.port, context.Cause(ctx), s.redact(err, ms...))
	}
	return fmt.Errorf("notify: smtp: %s:%d: %s", s.host, s.port, s.redact(err, ms...))
}

// refusal words the server's refusal of one message: the ones ownRefusal
// found to be the message's own for good are ErrUndeliverable. Any other,
// a 5xx included (to the greeting, AUTH, MAIL FROM, or at RCPT and DATA
// without an enhanced code that blames the message), is worth retrying
// once an operator has fixed the server or its configuration; dropping
// every queued message meanwhile would lose invitations and resets for
// good.
//
// A content filter's reply may quote the message (the link it blocked,
// the text it scored), so m's secrets are redacted from it too.
func (s *SMTP) refusal(ctx context.Context, err error, m Email) error {
	var own undeliverable
	if errors.As(err, &own) {
		return fmt.Errorf("notify: smtp: %s:%d: %w: %s", s.host, s.port, ErrUndeliverable, s.redact(err, m))
	}
	return s.sendError(ctx, err, m)
}

// dialFunc connects (with TLS for smtps) into pc and binds the connection
// to ctx (smtpConn.use): go-mail only honours the context while dialing,
// and afterwards each step is bounded by its own timeout, not by the
// caller's cancellation.
func (s *SMTP) dialFunc(ctx context.Context, tlsConf *tls.Config, pc *smtpConn) gomail.DialContextFunc {
	return func(dctx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{}
		var conn net.Conn
		var err error
		if s.implicitTLS {
			conn, err = (&tls.Dialer{NetDialer: d, Config: tlsConf}).DialContext(dctx, network, addr)
		} else {
			conn, err = d.DialContext(dctx, network, addr)
		}
		if err != nil {
			return nil, err
		}
		pc.conn = conn
		pc.use(ctx)
		return conn, nil
	}
}

// redact flattens err to text with the password and the secrets of ms
// (scrubMessages) removed. Servers do not normally echo credentials, but an
// error string ends up in logs, so it is not left to chance; the flattening
// drops the chain so no wrapped value can reveal the password either.
func (s *SMTP) redact(err error, ms ...Email) string {
	msg := err.Error()
	if s.pass != "" {
		msg = strings.ReplaceAll(msg, s.pass, redactedText)
	}
	return scrubMessages(msg, ms)
}

func (s *SMTP) message(m Email) (*gomail.Msg, error) {
	// The message's own faults are ErrUndeliverable (no retry mends
	// them); a bad From is the configuration's, and is retried.
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return nil, fmt.Errorf("%w: recipient %q: %w", ErrUndeliverable, m.To, err)
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return nil, fmt.Errorf("%w: subject contains a line break", ErrUndeliverable)
	}
	if m.Text == "" {
		return nil, fmt.Errorf("%w: empty text body", ErrUndeliverable)
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	// The addresses go to go-mail as net/mail writes them, not through
	// its FromFormat/AddToFormat, which put the name between quotes as
	// it is: a quote or a backslash in it (which LATCHKEY_EMAIL_FROM may
	// hold, escaped) then altered the name or made a header that does
	// not parse, and every message failed.
	if err := msg.From(s.from.String()); err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	if err := msg.AddTo(to.String()); err != nil {
		return nil, fmt.Errorf("%w: recipient: %w", ErrUndeliverable, err)
	}
	if strings.Contains(m.Subject, "=?") {
		// go-mail encodes a subject only when it has non-ASCII bytes, so
		// an all-ASCII "=?UTF-8?B?...?=" from an organization's name would
		// go out raw, and mail clients would decode it into other words
		// than the name holds (a brand, or a bidi override the name rules
		// forbid). Encoded whole, it decodes back to the literal text; this
		// covers names stored before any rule as well.
		msg.SetGenHeaderPreformatted(gomail.HeaderSubject, encodedWords(m.Subject))
	} else {
		msg.Subject(m.Subject)
	}
	msg.SetDate()
	// Our own domain in the Message-ID rather than go-mail's default of the
	// machine's host name, which would leak internal naming.
	domain := s.from.Address[strings.LastIndexByte(s.from.Address, '@')+1:]
	msg.SetMessageIDWithValue(ids.Token() + "@" + domain)
	// Auto-Submitted stops vacation responders from answering login mail.
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// encodedWordBytes is the most text one encoded word carries: 39 bytes
// are 52 base64 characters, a 64-character word with its "=?UTF-8?B?" and
// "?=", so even the first line ("Subject: " and a word) stays within RFC
// 5322's 78 characters.
const encodedWordBytes = 39

// encodedWords writes s as RFC 2047 B encoded-words, folded one to a line.
// A word ends on a character boundary (RFC 2047 5: each word must decode
// to whole characters); the folding white space between two encoded
// words is not part of the text (RFC 2047 6.2).
func encodedWords(s string) string {
	var words []string
	for len(s) > 0 {
		n := 0
		for n < len(s) {
			_, size := utf8.DecodeRuneInString(s[n:])
			if n > 0 && n+size > encodedWordBytes {
				break
			}
			n += size
		}
		words = append(words, "=?UTF-8?B?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, "\r\n ")
}
