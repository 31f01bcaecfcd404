package idp

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/m2m"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/signslot"
	"github.com/latchkey/latchkey/internal/store"
)

// m2mTokenTTL is the lifetime of machine-to-machine access tokens.
const m2mTokenTTL = time.Hour

type m2mClaims struct {
	jwt.Claims
	Scope string `json:"scope"`
}

// clientCredentials is the client_credentials grant (RFC 6749 4.4) for
// M2M clients: a JWT naming the client as sub, with the requested scopes
// (all of the client's when none are asked for, never more).
func (p *Provider) clientCredentials(r *http.Request, pr *project.Project) (any, error) {
	id, secret, err := clientCredentials(r)
	if err != nil {
		return nil, err
	}
	if id == "" || secret == "" {
		return nil, invalidClient()
	}
	// The client is read before the guard, which depends on its secret's
	// kind: a generated secret is checked first and a right one always
	// passes (as a connected app's); a chosen one, which may be guessable,
	// only within the address's allowance. An unknown client is guarded as
	// a chosen one: nothing is lost, there is no right secret to let by.
	c, err := p.m2m.Get(r.Context(), pr.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		c, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	generated := c != nil && !c.SecretChosen
	err = p.guardClient(r, pr.ID, clientAttempt{method: "client_credentials", clientID: id, endpoint: "token"}, generated, func() error {
		if c == nil || !c.Secret.Matches(secret) || c.Status != m2m.Active {
			return invalidClient()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	scopes := c.Scopes
	if s := r.PostForm.Get("scope"); s != "" {
		var ok bool
		if scopes, ok = splitScopes(s); !ok {
			return nil, invalidScope(scopeBoundsText())
		}
		for _, sc := range scopes {
			if !slices.Contains(c.Scopes, sc) {
				return nil, invalidScope("The client may not request scope " + sc + ".")
			}
		}
	}
	signer, err := p.signer(r.Context(), pr.ID)
	if err != nil {
		return nil, err
	}
	now := p.clock.Now()
	at, err := signslot.Sign(signer, m2mClaims{
		Claims: jwt.Claims{Issuer: AccessTokenIssuer(pr.ID), Subject: c.ClientID, Audience: jwt.Audience{pr.ID}, ID: ids.Token(),
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(m2mTokenTTL))},
		Scope: strings.Join(scopes, " "),
	})
	if err != nil {
		return nil, err
	}
	return &issued{AccessToken: at, TokenType: "bearer", ExpiresIn: int(m2mTokenTTL.Seconds()), Scope: strings.Join(scopes, " ")}, nil
}
