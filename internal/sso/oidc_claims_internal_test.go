package sso

import (
	"errors"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// email_verified says verified only as true or the string "true" (the
// string form is what Cognito's userinfo sends); every other value present
// is unverified, the string "false" included. An absent claim keeps the
// SSO rule that the provider's email counts as verified.
func TestOIDCEmailVerifiedOnlyTrueCounts(t *testing.T) {
	c := &conn{Kind: KindOIDC, OIDC: &oidcConfig{AttributeMapping: map[string]any{}}}
	absent := struct{}{}
	for name, tc := range map[string]struct {
		value    any
		verified bool
	}{
		"true":           {true, true},
		`"true"`:         {"true", true},
		"absent":         {absent, true},
		"false":          {false, false},
		`"false"`:        {"false", false},
		`"False"`:        {"False", false},
		`"TRUE"`:         {"TRUE", false},
		`""`:             {"", false},
		"null":           {nil, false},
		"1":              {float64(1), false},
		`"yes"`:          {"yes", false},
		"an object":      {map[string]any{"value": true}, false},
		"a list of true": {[]any{true}, false},
	} {
		t.Run(name, func(t *testing.T) {
			claims := map[string]any{"email": "ceo@acme.test"}
			if tc.value != absent {
				claims["email_verified"] = tc.value
			}
			id, err := oidcClaimsIdentity(c, "sub-1", claims)
			var pub *apierr.Error
			switch {
			case tc.verified && (err != nil || id.Email != "ceo@acme.test"):
				t.Fatalf("refused a verified address: %+v %v", id, err)
			case !tc.verified && (err == nil || !errors.As(err, &pub) || pub.Type != apierr.OIDCResponseUnverifiedEmail):
				t.Fatalf("accepted an unverified address: %+v %v", id, err)
			}
		})
	}
}
