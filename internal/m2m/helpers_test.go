package m2m_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// tenant is one project of the server as its backend and its machines see
// it: the project secret for /v1/m2m/clients, the project's own token
// endpoint for client_credentials.
type tenant struct {
	e *apptest.Env
	p *project.Created
}

func (c tenant) backend(method, path string, body any) apptest.Resp {
	c.e.T.Helper()
	return c.e.Do(method, path, body, nil, c.p.Project.ID, c.p.Secret)
}

// token asks the project's token endpoint for a client_credentials token
// (all of the client's scopes when scope is "").
func (c tenant) token(id, secret, scope string) apptest.Resp {
	c.e.T.Helper()
	v := url.Values{"grant_type": {"client_credentials"}}
	if scope != "" {
		v.Set("scope", scope)
	}
	return c.e.Do("POST", "/v1/public/"+c.p.Project.ID+"/oauth2/token", v.Encode(),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, id, secret)
}

// client reads one M2M client of the project, wanting it found.
func (c tenant) client(t *testing.T, id string) map[string]any {
	t.Helper()
	r := c.backend("GET", "/v1/m2m/clients/"+id, nil)
	apptest.Want(t, r, 200, "")
	return r.Body["m2m_client"].(map[string]any)
}

// verify checks an access token as a resource server of the project does
// (the Node client's m2m.authenticateToken): signature against the
// project's JWKS, issuer and audience the project's. It returns the
// claims, or an error when the token is not the project's.
func (c tenant) verify(t *testing.T, token string) (*jwt.Claims, error) {
	t.Helper()
	r := c.e.Get("/v1/public/" + c.p.Project.ID + "/.well-known/jwks.json")
	apptest.Want(t, r, 200, "")
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(r.Raw, &set); err != nil {
		t.Fatal(err)
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	var claims jwt.Claims
	for _, k := range set.Key(parsed.Headers[0].KeyID) {
		if err = parsed.Claims(k.Key, &claims); err != nil {
			return nil, err
		}
		return &claims, claims.Validate(jwt.Expected{Issuer: "stytch.com/" + c.p.Project.ID,
			AnyAudience: jwt.Audience{c.p.Project.ID}, Time: c.e.Clock.Now()})
	}
	return nil, jose.ErrJWKSKidNotFound
}
