package idp_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// The issuer's key set may be cached only for less than the lead a
// rotated key is published with before it signs, less the SDK verifier's
// 30 s refetch cooldown: a relying party holding the set longer would
// refuse the new key's first tokens.
func TestJWKSCachedShorterThanTheKeyLead(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Get("/v1/public/" + e.Project.Project.ID + "/.well-known/jwks.json")
		apptest.Want(t, r, 200, "")
		cc := r.Header.Get("Cache-Control")
		_, age, ok := strings.Cut(cc, "max-age=")
		secs, err := strconv.Atoi(age)
		if !ok || err != nil || time.Duration(secs)*time.Second > project.SigningKeyLead-30*time.Second {
			t.Fatalf("Cache-Control %q: want a max-age within the signing key lead (%s) less 30 s", cc, project.SigningKeyLead)
		}
	})
}
