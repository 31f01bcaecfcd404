// Package oidcuser is a test user for mockoidc, the OIDC provider the tests
// run on loopback: the provider still signs every ID token with its own key,
// and a test shapes the claims and the userinfo answer first. The OAuth
// login tests and the OIDC SSO tests share it; only tests import it.
package oidcuser

import (
	"encoding/json"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"
)

// User is a mockoidc user whose ID token is shaped before it is signed:
// HD adds Google's hosted domain (a Workspace account), Edit sets claims (a
// nil value removes the claim). Info, when set, is the provider's userinfo
// answer instead of mockoidc's.
type User struct {
	*mockoidc.MockUser
	HD   string
	Edit map[string]any
	Info map[string]any
}

// Claims is mockoidc's claims for the user with the edits applied.
func (u *User) Claims(scope []string, c *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	base, err := u.MockUser.Claims(scope, c)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	out := jwt.MapClaims{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	if u.HD != "" {
		out["hd"] = u.HD
	}
	for k, v := range u.Edit {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out, nil
}

// Userinfo is Info when set, else mockoidc's answer.
func (u *User) Userinfo(scope []string) ([]byte, error) {
	if u.Info == nil {
		return u.MockUser.Userinfo(scope)
	}
	return json.Marshal(u.Info)
}
