package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// ErrSameKey refuses a key rotation to the key already in use.
var ErrSameKey = errors.New("the new encryption key is the key already in use")

// Resealed is how many values a key rotation resealed in one place.
type Resealed struct {
	Place string `json:"place"` // table.column
	Count int    `json:"resealed"`
}

// resealer reseals one place's values from one key to another through the
// rotation's transaction.
type resealer func(ctx context.Context, q store.Querier, from, to *secretbox.Box) (int, error)

// sealedPlace is one place where sealed values are stored, and how to
// reseal them.
type sealedPlace struct {
	place string // table.column
	run   resealer
}

// sealedPlaces lists every place a value sealed with the encryption key is
// stored: the SealedColumns (bound to their row), the provider tokens of
// OAuth logins waiting in their token tickets, the mail queue, and the
// key-check canary. A new place that seals something must be added here,
// or a rotation leaves it under the old key, unreadable.
func sealedPlaces() []sealedPlace {
	var out []sealedPlace
	// The queue's messages are not bound to their rows, so start-up's
	// checks of SealedColumns leave them out; a rotation reseals them alike.
	for _, c := range append(SealedColumns(), notify.QueueColumn) {
		out = append(out, sealedPlace{c.Table + "." + c.Column, c.Rekey})
	}
	return append(out,
		sealedPlace{"flow_tickets.data", oauth.RekeyTickets},
		sealedPlace{"encryption_key_check.sealed", func(ctx context.Context, q store.Querier, from, to *secretbox.Box) (int, error) {
			return 1, atrest.RekeyCheck(ctx, q, from, to)
		}})
}

// Rekey reseals every value sealed with the App's key (a.Box) under to,
// in one transaction: afterwards the database starts with the new key
// only (the canary is resealed too) and every secret reads back with it.
// A value the current key does not open stops the rotation with an error
// naming its table, column and row (atrest.ErrCannotOpen), and nothing is
// written. NewWithDB has run before: the key is checked and the legacy
// and plaintext secrets are sealed for their rows.
//
// No server may run meanwhile: one would go on sealing new secrets with
// the old key. The App is spent afterwards (its services still hold the
// old key): close it.
func (a *App) Rekey(ctx context.Context, to *secretbox.Box) ([]Resealed, error) {
	if to == nil {
		return nil, atrest.ErrNoKey
	}
	const probe = "latchkey rekey probe"
	if pt, err := a.Box.Open(to.Seal(probe, probe), probe); err == nil && pt == probe {
		return nil, ErrSameKey
	}
	var out []Resealed
	err := a.DB.Tx(ctx, func(q store.Querier) error {
		out = out[:0]
		for _, p := range sealedPlaces() {
			n, err := p.run(ctx, q, a.Box, to)
			if err != nil {
				return err
			}
			out = append(out, Resealed{Place: p.place, Count: n})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("app: rotate the encryption key (nothing was changed): %w", err)
	}
	return out, nil
}
