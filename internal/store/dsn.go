package store

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// schemeRE is a URL scheme (RFC 3986) at the start of a value, with what
// follows its colon.
var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*):(.*)$`)

// keywordRE is the start of a libpq keyword/value string ("host=... user=...").
var keywordRE = regexp.MustCompile(`^[A-Za-z_]+\s*=`)

// ParseDSN says which engine a database URL names, and how to reach it:
// for PostgreSQL, the URL with its scheme in lower case (pgx recognises a
// URL only so); for SQLite, the file's path. It accepts a postgres:// or
// postgresql:// URL (the scheme in any case), or for SQLite a path,
// optionally behind "file:" or "sqlite:" (a query is dropped). Any other
// scheme:// is refused rather than taken for a file path (a mistyped
// PostgreSQL URL would otherwise run on an empty SQLite file named after
// it, password included), and so is a keyword/value PostgreSQL string:
// this server takes PostgreSQL settings as a URL only. No error shows a
// password.
func ParseDSN(dsn string) (Dialect, string, error) {
	dsn = strings.TrimSpace(dsn)
	if dsn == "" {
		return "", "", errors.New("store: the database URL is empty")
	}
	m := schemeRE.FindStringSubmatch(dsn)
	if m == nil || len(m[1]) == 1 { // no scheme, or a drive letter (C:\data\latchkey.db)
		if keywordRE.MatchString(dsn) {
			return "", "", errors.New("store: the database URL looks like a PostgreSQL keyword/value string " +
				"(host=... user=...); write it as a URL, postgres://user:password@host:5432/dbname?sslmode=require " +
				"(for a SQLite file whose name holds '=', start the path with ./)")
		}
		return SQLite, sqlitePath(dsn), nil
	}
	scheme, rest := strings.ToLower(m[1]), m[2]
	switch {
	case scheme == "postgres" || scheme == "postgresql":
		if !strings.HasPrefix(rest, "//") {
			return "", "", fmt.Errorf("store: a PostgreSQL database URL starts with %s://", scheme)
		}
		if err := checkUserinfo(rest[2:]); err != nil {
			return "", "", err
		}
		return Postgres, scheme + ":" + rest, nil
	case scheme == "file" || scheme == "sqlite":
		if p := sqlitePath(rest); p != "" {
			return SQLite, p, nil
		}
		return "", "", errors.New("store: the SQLite database path is empty")
	case strings.HasPrefix(rest, "//"):
		return "", "", fmt.Errorf("store: database URL scheme %q is not supported (%s): use postgres:// or "+
			"postgresql:// for PostgreSQL, or a file path or file: URL for SQLite", m[1], redactDSN(m[1], rest))
	}
	// "name:rest" without "//" is a file name with a colon, as before.
	return SQLite, sqlitePath(dsn), nil
}

// errAmbiguousUserinfo refuses a PostgreSQL URL whose user name or
// password holds a character that ends it early or that parsers read
// differently. It names no part of the URL: the part in doubt is the
// password.
var errAmbiguousUserinfo = errors.New("store: the PostgreSQL URL's user name or password holds a character that " +
	"must be percent-encoded: write '@' as %40, '/' as %2F, '?' as %3F, '#' as %23 and ':' in the user name as %3A " +
	"(postgres://user:p%40ss@host:5432/dbname)")

// checkUserinfo refuses a PostgreSQL URL (after its "//") whose user
// information two readers would split differently. pgx, like libpq, takes
// the user information up to the first '@' before the first '/'; net/url
// (RFC 3986) up to the last '@' before the first '/', '?' or '#'. A
// password holding '@' (S3cr@t) made pgx take its tail for the host name:
// it went to DNS and into the error ("lookup t@db.example: no such host").
// One holding '?' or '#' is read by pgx alone, and one holding '/' ends
// the host early and leaves an '@' in the database name. Each is refused
// before anything connects, asking for the character percent-encoded.
func checkUserinfo(rest string) error {
	auth := rest // pgx's authority: up to the first '/'
	path := ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		auth, path = rest[:i], rest[i:]
	}
	if strings.Count(auth, "@") > 1 {
		return errAmbiguousUserinfo
	}
	pgxUser, _, _ := strings.Cut(auth, "@")
	if !strings.Contains(auth, "@") {
		pgxUser = ""
	}
	urlAuth := auth // net/url's authority: also ends at '?' or '#'
	if i := strings.IndexAny(urlAuth, "?#"); i >= 0 {
		urlAuth = urlAuth[:i]
	}
	urlUser := ""
	if i := strings.LastIndexByte(urlAuth, '@'); i >= 0 {
		urlUser = urlAuth[:i]
	}
	if pgxUser != urlUser || strings.Contains(auth, "@") != strings.Contains(urlAuth, "@") {
		return errAmbiguousUserinfo
	}
	// The database name ends at '?'; an '@' before it is a password's '/'
	// (postgres://u:pa/ss@host/db). A name that really holds '@' is
	// written %40.
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if strings.Contains(path, "@") {
		return errAmbiguousUserinfo
	}
	return nil
}

// sqlitePath drops the query of a SQLite file value.
func sqlitePath(p string) string {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		return p[:i]
	}
	return p
}

// redactDSN shows scheme://rest for an error without its user information
// (everything up to the last '@': a password may hold '@', '/' or '?'),
// then without its query (which may carry password=).
func redactDSN(scheme, rest string) string {
	rest = strings.TrimPrefix(rest, "//")
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = "[redacted]@" + rest[i+1:]
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	return scheme + "://" + rest
}
