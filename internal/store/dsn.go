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
