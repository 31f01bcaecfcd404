package idp_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An id_token_hint must be an ID token this provider signed for the client
// (OIDC RP-Initiated Logout 2): one re-signed with another key, one issued
// to another client, and an access token whose custom audience is the
// client (right audience, wrong issuer) are all invalid_request.
func TestLogoutHintMustBeOurIDTokenForTheClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		other, otherSecret := f.client("third_party", nil)
		ownAud, ownAudSecret := f.client("third_party", nil)
		apptest.Want(t, e.Backend("PUT", "/v1/connected_apps/clients/"+ownAud, map[string]any{"access_token_custom_audience": ownAud}), 200, "")
		idt := f.grant(id, secret, "openid").Body["id_token"].(string)
		logout := func(client, hint string) apptest.Resp {
			return e.SDK("POST", "/b2b/oauth/logout/start", map[string]any{"client_id": client,
				"post_logout_redirect_uri": "https://rp.test/bye", "id_token_hint": hint}, f.session)
		}
		apptest.Want(t, logout(id, idt), 200, "")
		apptest.Want(t, logout(id, forge(t, idt)), 400, "invalid_request")
		apptest.Want(t, logout(id, f.grant(other, otherSecret, "openid").Body["id_token"].(string)), 400, "invalid_request")
		apptest.Want(t, logout(ownAud, f.grant(ownAud, ownAudSecret, "openid").Body["access_token"].(string)), 400, "invalid_request")
	})
}
