package m2m_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A chosen client_secret is at least 32 characters and hard to guess
// (zxcvbn's estimate, with the client's own id and name counted as known
// to an attacker), at most 256 characters (TestChosenSecretMustBeLongAndRandom
// says why). Its last four characters are no secret
// (client_secret_last_four is answered by create, get and search), so
// what precedes them must score too. A weak one of any length is
// insecure_m2m_client_secret; a strong one is taken and works at the
// token endpoint.
func TestChosenSecretRule(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := tenant{e, e.Project}
		n := 0
		create := func(secret string) apptest.Resp {
			t.Helper()
			n++
			return a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": "nightly-reports-" + string(rune('a'+n)),
				"client_name": "Nightly reports", "client_secret": secret, "scopes": []string{"read"}})
		}
		for name, secret := range map[string]string{
			"seven characters":        "Xq7#vL2",
			"eight random characters": "Xq7#vL2p",
			"a common password":       "Password1234567!Password1234567!",
			"a keyboard walk":         "qwertyuiopasdfghjklzxcvbnm1234567890",
			"one repeated character":  strings.Repeat("s", 40),
			"a repeated pattern":      strings.Repeat("ab1", 30),
			"the client's own name":   "Nightly reports Nightly reports Nightly",
			// 1.4e22 guesses as a whole, but the shown last four leave
			// a repeated password and four characters (1.4e18) to guess.
			"strong only with the shown last four": "Summer2024!Summer2024!Summer20247Hq2!Zq8",
		} {
			if r := create(secret); r.Status != 400 || r.ErrType() != "insecure_m2m_client_secret" {
				t.Errorf("%s: %d %s", name, r.Status, r.Raw)
			}
		}
		// The client's own id, which is no secret, with one character more
		// (strong enough for zxcvbn without knowing the id).
		const ownID = "kx7-report-qz9-Lw4-vB8-tR2-mY6-hJ"
		if r := a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": ownID, "client_secret": ownID + "!",
			"scopes": []string{"read"}}); r.Status != 400 || r.ErrType() != "insecure_m2m_client_secret" {
			t.Errorf("the client's own id: %d %s", r.Status, r.Raw)
		}
		long := strings.Repeat("Zr8#kP3v-Wq6!mT1", 17)[:257]
		if r := create(long); r.Status != 400 || r.ErrType() != "m2m_client_invalid_client_secret" {
			t.Errorf("257 characters: %d %s", r.Status, r.Raw)
		}
		// 256 strong characters are taken, scored on their beginning only.
		apptest.Want(t, create(long[:256]), 200, "")
		// A weak beginning is not redeemed by what follows it.
		if r := create(strings.Repeat("a", 120) + "Zr8#kP3v-Wq6!mT1"); r.Status != 400 || r.ErrType() != "insecure_m2m_client_secret" {
			t.Errorf("weak beginning: %d %s", r.Status, r.Raw)
		}

		// 28 random characters before the four shown (1e28 guesses).
		const strong = "Xq7#vL2pR9m!Tz4wHb3$kN8sQ1e&Wy6z"
		r := create(strong)
		apptest.Want(t, r, 200, "")
		c := r.Body["m2m_client"].(map[string]any)
		if c["client_secret"] != strong || c["client_secret_last_four"] != "Wy6z" {
			t.Fatalf("the chosen secret is the client's: %s", r.Raw)
		}
		apptest.Want(t, a.token(c["client_id"].(string), strong, ""), 200, "")
	})
}

// Search refusals carry the API family's m2m_search_* types.
func TestSearchRefusals(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		search := func(operand map[string]any) apptest.Resp {
			return e.Backend("POST", "/v1/m2m/clients/search", map[string]any{"query": map[string]any{
				"operator": "AND", "operands": []any{operand}}})
		}
		for name, c := range map[string]struct {
			operand map[string]any
			want    string
		}{
			"no filter_name":        {map[string]any{"filter_value": []string{"x"}}, "m2m_search_missing_filter_name"},
			"empty filter_name":     {map[string]any{"filter_name": "", "filter_value": []string{"x"}}, "m2m_search_missing_filter_name"},
			"numeric filter_name":   {map[string]any{"filter_name": 7, "filter_value": []string{"x"}}, "m2m_search_filter_name_must_be_string"},
			"unknown filter_name":   {map[string]any{"filter_name": "status", "filter_value": []string{"x"}}, "m2m_search_filter_name_not_recognized"},
			"no filter_value":       {map[string]any{"filter_name": "scopes"}, "m2m_search_missing_filter_value"},
			"null filter_value":     {map[string]any{"filter_name": "scopes", "filter_value": nil}, "m2m_search_missing_filter_value"},
			"string filter_value":   {map[string]any{"filter_name": "scopes", "filter_value": "read"}, "m2m_search_expected_array_of_strings"},
			"numbers in the values": {map[string]any{"filter_name": "client_id", "filter_value": []any{"a", 1}}, "m2m_search_expected_array_of_strings"},
		} {
			if r := search(c.operand); r.Status != 400 || r.ErrType() != c.want {
				t.Errorf("%s: %d %s, want %s", name, r.Status, r.Raw, c.want)
			}
		}
		apptest.Want(t, search(map[string]any{"filter_name": "scopes", "filter_value": []string{"read"}}), 200, "")
	})
}
