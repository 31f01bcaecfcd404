package oauth

import (
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Bounds of a start's custom_scopes. The scopes are kept in the state
// ticket until the callback, and then with the provider tokens on the
// member's registration, so anyone who can open a start URL chooses the
// size of those rows: a megabyte of custom_scopes was a 1.6 MB ticket per
// start. Real requests are far smaller: a provider scope is a word or a
// URL (Google's longest are under 100 bytes), and an app asks for a
// handful: 50 of them fit. 4 KB of scopes, percent-encoded (URL scopes grow
// by about a third), also keeps the provider's authorize URL, which carries
// them beside the state, nonce, challenge and redirect URI, near 6 KB:
// under the 8 KB request line that common front ends accept.
const (
	MaxCustomScopes      = 50
	MaxCustomScopeBytes  = 200
	MaxCustomScopesBytes = 4096
)

// customScopes reads custom_scopes (space-separated) as a list without
// duplicates, in the order given, and refuses it whole, naming the field,
// past any bound. It stops reading at the first bound crossed.
func customScopes(raw string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	total := 0
	for s := range strings.FieldsSeq(raw) {
		if seen[s] {
			continue
		}
		seen[s] = true
		total += len(s) + 1 // with the space that joins it to the next
		switch {
		case len(s) > MaxCustomScopeBytes:
			return nil, apierr.Invalid("custom_scopes", fmt.Sprintf("custom_scopes: each scope may be at most %d bytes.", MaxCustomScopeBytes))
		case len(out) == MaxCustomScopes:
			return nil, apierr.Invalid("custom_scopes", fmt.Sprintf("custom_scopes may list at most %d scopes.", MaxCustomScopes))
		case total-1 > MaxCustomScopesBytes:
			return nil, apierr.Invalid("custom_scopes", fmt.Sprintf("custom_scopes may be at most %d bytes in all.", MaxCustomScopesBytes))
		}
		out = append(out, s)
	}
	return out, nil
}
