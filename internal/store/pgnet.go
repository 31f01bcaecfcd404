package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrUnavailable is returned when the database did not answer within a
// deadline this package or its callers set (a sync of the change feed, a
// readiness ping): a partition or a hung server, as opposed to an answer
// that was an error. Callers fail the request rather than try another
// read that would wait as long.
var ErrUnavailable = errors.New("store: the database did not answer in time")

// How this process notices that PostgreSQL stopped answering. Without
// them a socket to a server behind a silent partition waits for the
// kernel's retransmissions to give up (about 15 minutes on Linux), and
// everything queued behind it with it.
const (
	// ConnectTimeout bounds a new connection, from dial to ready for
	// queries, when the URL sets no connect_timeout (nor PGCONNECT_TIMEOUT).
	ConnectTimeout = 5 * time.Second
	// PingTimeout bounds the start-up ping: a server that accepts the
	// connection but never answers fails the start, naming its address.
	PingTimeout = 10 * time.Second
	// keepAliveIdle, keepAliveInterval and keepAliveCount close an idle
	// connection whose peer went away within about 30 s (15 s + 3 x 5 s),
	// where Go's default probes only after 15 s and the kernel's ends
	// after minutes.
	keepAliveIdle     = 15 * time.Second
	keepAliveInterval = 5 * time.Second
	keepAliveCount    = 3
	// userTimeout (TCP_USER_TIMEOUT, Linux) closes a connection whose sent
	// data stays unacknowledged this long: a statement sent into a
	// partition fails after it, not after the retransmissions.
	userTimeout = 30 * time.Second
)

// pgConfig parses a PostgreSQL URL (ParseDSN's target) and applies the
// timeouts above: connect_timeout when the URL and the environment set
// none, TCP keepalive and user timeout on every connection.
func pgConfig(dsn string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	if !connectTimeoutSet(dsn) {
		cfg.ConnectTimeout = ConnectTimeout
	}
	d := &net.Dialer{
		Timeout:         cfg.ConnectTimeout,
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: keepAliveIdle, Interval: keepAliveInterval, Count: keepAliveCount},
		Control:         setUserTimeout(userTimeout),
	}
	cfg.DialFunc = d.DialContext
	return cfg, nil
}

// connectTimeoutSet reports whether the operator chose a connect timeout:
// connect_timeout in the URL's query, or PGCONNECT_TIMEOUT, which pgx
// reads as libpq does. Their choice (0 too: wait for ever) is kept. An
// empty one is no choice: pgx, like libpq, ignores an empty variable (a
// common line in container environment files), which left no limit at all.
func connectTimeoutSet(dsn string) bool {
	if os.Getenv("PGCONNECT_TIMEOUT") != "" {
		return true
	}
	u, err := url.Parse(dsn)
	return err == nil && u.Query().Has("connect_timeout")
}

// pingPostgres checks that the server at cfg answers within PingTimeout
// (a new connection within its connect timeout). A server that does not
// is named by its address (never the URL, which may hold a password), so
// an operator sees which setting to look at instead of a start that
// hangs.
func pingPostgres(ctx context.Context, ping func(context.Context) error, cfg *pgx.ConnConfig, dsn string) error {
	pctx, cancel := context.WithTimeout(ctx, PingTimeout)
	defer cancel()
	err := ping(pctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() == nil && (pctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)):
		return fmt.Errorf("store: PostgreSQL at %s did not answer in time (connect timeout %s, ping %s): %w",
			pgAddr(cfg), cfg.ConnectTimeout, PingTimeout, errors.Join(ErrUnavailable, redactConnError(dsn, err)))
	}
	return fmt.Errorf("store: ping PostgreSQL at %s: %w", pgAddr(cfg), redactConnError(dsn, err))
}

// pgAddr is the host and port a configuration connects to first.
func pgAddr(cfg *pgx.ConnConfig) string {
	if len(cfg.Host) > 0 && cfg.Host[0] == '/' {
		return fmt.Sprintf("%s (port %d)", cfg.Host, cfg.Port)
	}
	return net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
}
