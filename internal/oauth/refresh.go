package oauth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/providertokens"
	"github.com/latchkey/latchkey/internal/store"
)

// Refreshing a registration's access token. The backend's oauth_providers
// route hands the customer's server the member's provider tokens, and the
// vendor refreshes an expired access token there when it holds a refresh
// token ("If a refresh token has been issued, Stytch will refresh the
// access token automatically"). So does this module: an access token that
// has expired, or expires within refreshAhead, is redeemed at the
// provider's token endpoint (the refresh_token grant), and the answer is
// sealed and stored in place of the old one before it is handed out.
//
// One refresh per registration at a time: a provider that rotates refresh
// tokens spends the old one at the first refresh, so a second concurrent
// refresh with it would fail, or make the provider revoke the grant. On
// one replica concurrent calls share one refresh (Module.refreshes); across
// replicas the row's refresh_until leases it (migration 0005), and the
// others wait for the holder's answer. No transaction is held across the
// provider's round trip: SQLite has one writer.
//
// The vendor does not say what a failed refresh answers; the stored tokens
// are answered unchanged (the expired access token, access_token_expires_in
// 0), and the failure is logged.
const (
	// refreshAhead refreshes a token this close to its expiry, so that the
	// customer does not get one that expires on its way.
	refreshAhead = time.Minute
	// refreshLease is how long a replica holds a registration's refresh
	// before another may take it over: past the provider client's timeout.
	refreshLease = 30 * time.Second
	// refreshPoll is how often a replica waiting for another's refresh
	// looks at the row.
	refreshPoll = 100 * time.Millisecond
)

// needsRefresh reports whether t's access token is to be refreshed at now:
// there is a refresh token, and the access token has a known expiry within
// refreshAhead.
func needsRefresh(t providers.Tokens, now time.Time) bool {
	return t.RefreshToken != "" && !t.ExpiresAt.IsZero() && !t.ExpiresAt.After(now.Add(refreshAhead))
}

// lazyProvider is a project's provider built on first use, at most once
// (Module.provider: a database read and a secret opened, OIDC discovery
// when not cached): a request that refreshes several registrations' access
// tokens builds it once, and one that refreshes none, never. A failure is
// kept as well: the next registration would meet it again. One belongs to
// one request, whose registrations are refreshed one after another.
type lazyProvider struct {
	build func(ctx context.Context) (providers.Provider, error)
	p     providers.Provider
	err   error
	built bool
}

// lazyProvider returns the lazily built provider name of projectID.
func (m *Module) lazyProvider(projectID, name string) *lazyProvider {
	return &lazyProvider{build: func(ctx context.Context) (providers.Provider, error) {
		p, _, err := m.provider(ctx, projectID, name)
		return p, err
	}}
}

// get builds the provider the first time and answers that build since.
func (l *lazyProvider) get(ctx context.Context) (providers.Provider, error) {
	if !l.built {
		l.p, l.err = l.build(ctx)
		l.built = true
	}
	return l.p, l.err
}

// refreshed returns the tokens to answer for registration regID of
// provider (built by prov when a refresh needs it), whose row held stored
// (sealed) when read, that is t: t refreshed and stored, the tokens
// another refresh stored meanwhile, or t unchanged when the refresh fails
// (logged).
func (m *Module) refreshed(ctx context.Context, prov *lazyProvider, provider, regID, stored string, t providers.Tokens) providers.Tokens {
	// Once the provider has answered, its answer must be stored even if
	// the caller has gone: a rotated refresh token is the only one left.
	ctx = context.WithoutCancel(ctx)
	v, err, _ := m.refreshes.Do(regID, func() (any, error) {
		return m.refresh(ctx, prov, regID, stored, t)
	})
	if err != nil {
		httpapi.Logger(ctx).Warn("oauth: provider access token refresh failed; answering the stored tokens",
			"request_id", httpapi.RequestID(ctx), "provider", provider, "registration_id", regID, "cause", err.Error())
		return t
	}
	return v.(providers.Tokens)
}

// refresh takes the registration's refresh lease and refreshes t at the
// provider, or waits for the replica that holds the lease.
func (m *Module) refresh(ctx context.Context, prov *lazyProvider, regID, stored string, t providers.Tokens) (providers.Tokens, error) {
	now := m.d.Clock.Now()
	lease := store.Millis(now.Add(refreshLease))
	res, err := m.d.DB.ExecContext(ctx, `UPDATE member_oauth_registrations SET refresh_until = $1
		WHERE registration_id = $2 AND tokens = $3 AND refresh_until < $4`, lease, regID, stored, store.Millis(now))
	if err != nil {
		return t, fmt.Errorf("oauth: lease refresh: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return m.awaitRefresh(ctx, regID, stored, t)
	}
	fresh, err := refreshAt(ctx, prov, t.RefreshToken)
	if err != nil {
		// Released, so that the next call tries again.
		if _, rerr := m.d.DB.ExecContext(ctx, `UPDATE member_oauth_registrations SET refresh_until = 0
			WHERE registration_id = $1 AND refresh_until = $2`, regID, lease); rerr != nil {
			err = errors.Join(err, fmt.Errorf("oauth: release refresh: %w", rerr))
		}
		return t, err
	}
	return m.storeRefreshed(ctx, regID, lease, t, afterRefresh(fresh, t))
}

// refreshAt redeems refreshToken at prov's token endpoint.
func refreshAt(ctx context.Context, prov *lazyProvider, refreshToken string) (providers.Tokens, error) {
	p, err := prov.get(ctx)
	if err != nil {
		return providers.Tokens{}, err
	}
	return p.Refresh(ctx, refreshToken)
}

// afterRefresh is what a registration keeps after fresh, a refresh of
// prev: fresh's access token and expiry; its refresh token, ID token and
// scopes when the provider sent them, prev's otherwise.
func afterRefresh(fresh, prev providers.Tokens) providers.Tokens {
	next := fresh.KeepingRefresh(prev)
	if next.IDToken == "" {
		next.IDToken = prev.IDToken
	}
	if len(next.Scopes) == 0 {
		next.Scopes = prev.Scopes
	}
	return next
}

// storeRefreshed stores next, the refresh of prev, on the registration and
// ends the lease, unless the row no longer holds prev: a login stored newer
// tokens meanwhile, or a deletion cleared them. Those stand, and are
// answered. The row is compared opened, not sealed: a key rotation may
// have resealed the same tokens.
func (m *Module) storeRefreshed(ctx context.Context, regID string, lease int64, prev, next providers.Tokens) (providers.Tokens, error) {
	out := next
	err := m.d.DB.Tx(ctx, func(q store.Querier) error {
		if err := m.d.DB.LockRow(ctx, q, "member_oauth_registrations", "registration_id", regID); err != nil {
			return err
		}
		var cur string
		if err := q.QueryRowContext(ctx, `SELECT tokens FROM member_oauth_registrations WHERE registration_id = $1`,
			regID).Scan(&cur); err != nil {
			return fmt.Errorf("oauth: refreshed tokens: %w", store.MapError(err))
		}
		held, err := providertokens.Open(m.d.Box, TokensColumn, regID, cur)
		if err != nil {
			return err
		}
		if held.AccessToken != prev.AccessToken || held.RefreshToken != prev.RefreshToken {
			out = held
			_, err := q.ExecContext(ctx, `UPDATE member_oauth_registrations SET refresh_until = 0
				WHERE registration_id = $1 AND refresh_until = $2`, regID, lease)
			return err
		}
		sealed, err := providertokens.Seal(m.d.Box, TokensColumn, regID, next)
		if err != nil {
			return err
		}
		// tokens_checked records them as sealed for the row (tokensPass).
		_, err = q.ExecContext(ctx, `UPDATE member_oauth_registrations SET tokens = $1, tokens_checked = substr($1, 5, 16),
			refresh_until = 0 WHERE registration_id = $2`, sealed, regID)
		return err
	})
	if err != nil {
		return prev, fmt.Errorf("oauth: store refreshed tokens: %w", err)
	}
	return out, nil
}

// awaitRefresh waits, up to the lease, for the replica that holds the
// registration's refresh lease to store its answer or let the lease go,
// and returns what the row holds then (t if it still holds stored).
func (m *Module) awaitRefresh(ctx context.Context, regID, stored string, t providers.Tokens) (providers.Tokens, error) {
	deadline := time.NewTimer(refreshLease)
	defer deadline.Stop()
	tick := time.NewTicker(refreshPoll)
	defer tick.Stop()
	for {
		var cur string
		var until int64
		if err := m.d.DB.Read().QueryRowContext(ctx, `SELECT tokens, refresh_until FROM member_oauth_registrations
			WHERE registration_id = $1`, regID).Scan(&cur, &until); err != nil {
			return t, fmt.Errorf("oauth: await refresh: %w", store.MapError(err))
		}
		if cur != stored {
			return providertokens.Open(m.d.Box, TokensColumn, regID, cur)
		}
		if until < store.Millis(m.d.Clock.Now()) {
			return t, nil // the holder failed (and logged it), or gave up
		}
		select {
		case <-deadline.C:
			return t, nil
		case <-tick.C:
		}
	}
}
