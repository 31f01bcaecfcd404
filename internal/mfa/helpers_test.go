package mfa_test

import (
	"context"

	"github.com/latchkey/latchkey/internal/apptest"
)

// smsCount counts the text messages to a number.
func smsCount(e *apptest.Env, to string) int {
	e.T.Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 200)
	if err != nil {
		e.T.Fatal(err)
	}
	return len(msgs)
}
