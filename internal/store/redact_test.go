package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgx's parse errors quote the URL with the password masked as well as it
// can find it, and the error beneath may quote a piece of it; a driver's
// connection error could name the password too. What Open returns keeps
// the reason and never the password.
func TestRedactConnError(t *testing.T) {
	dsn := "postgres://latchkey:Sup3rS3cret@127.0.0.1:5432/db?sslpassword=K3yPa55&password=Qu3ryPw"
	pce := pgconn.NewParseConfigError("postgres://latchkey:xx@Sup3rS3cret@h/db", "invalid port",
		errors.New(`strconv.ParseUint: parsing "Sup3rS3cret": invalid syntax`))
	err := redactConnError(dsn, pce)
	if msg := err.Error(); strings.Contains(msg, "S3cret") || !strings.Contains(msg, "invalid port") {
		t.Errorf("parse error: %q", msg)
	}
	var back *pgconn.ParseConfigError
	if !errors.As(err, &back) {
		t.Error("the driver's error is no longer reachable with errors.As")
	}
	wrapped := errors.Join(context.DeadlineExceeded,
		errors.New("auth failed for Sup3rS3cret, K3yPa55 and Qu3ryPw (Sup3rS3cret)"))
	err = redactConnError(dsn, wrapped)
	for _, s := range []string{"Sup3rS3cret", "K3yPa55", "Qu3ryPw"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("connect error shows %s: %q", s, err)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("errors.Is no longer sees the cause")
	}
}
