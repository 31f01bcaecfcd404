// Package providertokens is what an identity provider's token endpoint
// answered at a member's login: access, refresh and ID tokens, scopes and
// expiry. OAuth logins (package oauth) and OIDC SSO logins (package sso)
// keep it beside the member's registration, sealed at rest for its row
// (package atrest), and the backend face hands it to the customer's server
// to call the provider's API.
package providertokens

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// Tokens are what the provider handed back.
type Tokens struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token"`
	IDToken      string    `json:"id_token"`
	Scopes       []string  `json:"scopes"`
	ExpiresAt    time.Time `json:"expires_at"`
}

// FromOAuth2 copies a token endpoint's answer. The scopes are the ones
// the answer grants (its scope parameter, space or comma separated), else
// those requested; never nil.
func FromOAuth2(t *oauth2.Token, requested []string) Tokens {
	out := Tokens{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, Scopes: requested, ExpiresAt: t.Expiry.UTC()}
	if id, ok := t.Extra("id_token").(string); ok {
		out.IDToken = id
	}
	if s, ok := t.Extra("scope").(string); ok && s != "" {
		out.Scopes = strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
	}
	if out.Scopes == nil {
		out.Scopes = []string{}
	}
	return out
}

// ExpiresIn is the access token's access_token_expires_in at now: the
// whole seconds it has left, 0 when it has expired or its expiry is
// unknown.
func (t Tokens) ExpiresIn(now time.Time) int {
	if t.ExpiresAt.IsZero() || !t.ExpiresAt.After(now) {
		return 0
	}
	return int(t.ExpiresAt.Sub(now).Seconds())
}

// KeepingRefresh is t, a later login's answer, with prev's refresh token
// when t has none. Providers issue a refresh token only at some logins
// (Google at the first consent, not at later ones), and an answer without
// one does not revoke the one issued before: dropping it would leave the
// customer's backend unable to refresh the access token until the member
// consents again.
func (t Tokens) KeepingRefresh(prev Tokens) Tokens {
	if t.RefreshToken == "" {
		t.RefreshToken = prev.RefreshToken
	}
	return t
}

// KeepingAccess is t, a later login's answer, with prev's access token,
// its expiry and its scopes when t has no access token and prev has one.
// A login may bring none: Google One Tap hands the page an ID token only,
// and the vendor keeps the tokens of the redirect flow then. Replacing
// them with nothing would leave the customer's backend without the access
// token, and with scopes that no token was granted, until the member logs
// in through the redirect flow again. The ID token is t's.
func (t Tokens) KeepingAccess(prev Tokens) Tokens {
	if t.AccessToken == "" && prev.AccessToken != "" {
		t.AccessToken, t.ExpiresAt, t.Scopes = prev.AccessToken, prev.ExpiresAt, prev.Scopes
	}
	return t
}

// Seal returns what to store in col for row id.
func Seal(box *secretbox.Box, col atrest.Column, id string, t Tokens) (string, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("providertokens: encode: %w", err)
	}
	return col.SealStored(box, id, string(b))
}

// Open reads what Seal stored in col for row id; "" (a registration
// without tokens) is the zero Tokens.
func Open(box *secretbox.Box, col atrest.Column, id, stored string) (Tokens, error) {
	var t Tokens
	if stored == "" {
		return t, nil
	}
	plain, err := col.OpenStored(box, id, stored)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal([]byte(plain), &t); err != nil {
		return t, fmt.Errorf("providertokens: decode: %w", err)
	}
	return t, nil
}
