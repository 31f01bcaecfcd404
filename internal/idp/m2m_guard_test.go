package idp_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/idp"
)

// An M2M client's generated secret (256 random bits) is guarded as a
// connected app's: wrong guesses from an address, at any client, spend the
// address's allowance, but the right generated secret still passes there,
// so a scanner cannot lock every generated client out of the token
// endpoint from its address. A chosen secret stays behind the allowance
// until a rotation completes, whose secret is generated; a rotation only
// started changes nothing.
func TestGeneratedM2MSecretsPassPastTheAllowance(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		create := func(body map[string]any) (id, secret string) {
			body["scopes"] = []string{"read:x"}
			r := e.Backend("POST", "/v1/m2m/clients", body)
			apptest.Want(t, r, 200, "")
			m := r.Body["m2m_client"].(map[string]any)
			return m["client_id"].(string), m["client_secret"].(string)
		}
		genID, genSecret := create(map[string]any{"client_name": "Generated"})
		const chosen = "correct-horse-battery-staple-1234567890"
		chosenID, _ := create(map[string]any{"client_name": "Chosen", "client_id": "job-1", "client_secret": chosen})
		tokenPath := "/v1/public/" + e.Project.Project.ID + "/oauth2/token"
		token := func(id, secret string) apptest.Resp {
			h := http.Header{"X-Forwarded-For": {"198.51.100.4"}, "Content-Type": {"application/x-www-form-urlencoded"}}
			return e.Do("POST", tokenPath, url.Values{"grant_type": {"client_credentials"}}.Encode(), h, id, secret)
		}
		for i := range idp.ClientSecretFailuresPerIP.Limit {
			oauthErr(t, token([]string{genID, chosenID, "unknown-job"}[i%3], "wrong-guess-wrong-guess"), 401, "invalid_client")
		}
		// Out of allowance: another wrong guess is refused either way.
		oauthErr(t, token(genID, "wrong-guess-wrong-guess"), 429, "slow_down")
		oauthErr(t, token("unknown-job", "wrong-guess-wrong-guess"), 429, "slow_down")
		// The generated secret passes; the chosen one does not.
		apptest.Want(t, token(genID, genSecret), 200, "")
		oauthErr(t, token(chosenID, chosen), 429, "slow_down")

		// A started rotation leaves the chosen secret current: still guarded.
		rotate := func(step string) apptest.Resp {
			r := e.Backend("POST", "/v1/m2m/clients/"+chosenID+"/secrets/"+step, nil)
			apptest.Want(t, r, 200, "")
			return r
		}
		next := rotate("rotate/start").Body["m2m_client"].(map[string]any)["next_client_secret"].(string)
		oauthErr(t, token(chosenID, chosen), 429, "slow_down")
		// Completed, the generated secret is the client's only one, and
		// passes past the allowance as any generated secret does.
		rotate("rotate")
		apptest.Want(t, token(chosenID, next), 200, "")
		oauthErr(t, token(chosenID, chosen), 429, "slow_down")
	})
}
