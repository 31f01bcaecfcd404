package store

import (
	"errors"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// redactedError is a driver's error with its text cleared of the
// connection string's secrets; Unwrap still reaches the original (for
// errors.Is on a timeout or a refused connection).
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactConnError clears err, returned while opening or pinging the
// PostgreSQL URL dsn, of what in it may be secret. pgx's parse errors
// quote the URL with the password masked only as well as pgx can find it
// ("cannot parse `postgresql://u:xxxxx@ss:xxxxxx@…`" showed a password's
// middle): only their reason is kept. Connection errors name the user, the
// database and the host, which ParseDSN made sure are what the URL says;
// any password that still appears in them (the URL's, or a password= in
// its query) is masked all the same.
func redactConnError(dsn string, err error) error {
	if err == nil {
		return nil
	}
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		return &redactedError{msg: "cannot use the PostgreSQL URL: " + parseReason(pce), err: err}
	}
	msg := err.Error()
	for _, s := range dsnSecrets(dsn) {
		msg = strings.ReplaceAll(msg, s, "xxxxx")
	}
	return &redactedError{msg: msg, err: err}
}

// parseReason is the reason of a pgx parse error without the connection
// string it quotes or the error beneath it (a strconv error quotes the
// text it failed on, which may be part of a password).
func parseReason(pce *pgconn.ParseConfigError) string {
	c := *pce
	c.ConnString = ""
	msg := strings.TrimPrefix(c.Error(), "cannot parse ``: ")
	if inner := errors.Unwrap(pce); inner != nil {
		msg = strings.TrimSuffix(msg, " ("+inner.Error()+")")
	}
	return msg
}

// dsnSecrets lists the passwords a PostgreSQL URL holds, as written and
// decoded: the user information's (as pgx splits it: up to the first
// '@' before the first '/') and the query's password= and sslpassword=.
func dsnSecrets(dsn string) []string {
	var out []string
	add := func(raw string) {
		if raw == "" {
			return
		}
		out = append(out, raw)
		if dec, err := url.PathUnescape(raw); err == nil && dec != raw && dec != "" {
			out = append(out, dec)
		}
	}
	_, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return nil
	}
	auth, _, _ := strings.Cut(rest, "/")
	if userinfo, _, ok := strings.Cut(auth, "@"); ok {
		if _, pw, ok := strings.Cut(userinfo, ":"); ok {
			add(pw)
		}
	}
	if _, query, ok := strings.Cut(rest, "?"); ok {
		for _, pair := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(pair, "=")
			if k, err := url.QueryUnescape(k); err == nil && (strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword")) {
				add(v)
			}
		}
	}
	return out
}
