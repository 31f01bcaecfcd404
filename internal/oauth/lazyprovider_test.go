package oauth

import (
	"context"
	"errors"
	"testing"

	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// The provider info route refreshes its registrations through one
// lazyProvider: the provider (a configuration read, a secret opened) is
// built at the first refresh and shared by the others, never when no
// registration needs one, and a failed build is not retried per
// registration.
func TestLazyProviderBuildsOnceOnFirstUse(t *testing.T) {
	ctx := context.Background()
	for _, fail := range []bool{false, true} {
		builds := 0
		l := &lazyProvider{build: func(context.Context) (providers.Provider, error) {
			builds++
			if fail {
				return nil, errors.New("no configuration")
			}
			return providers.NewFactory(nil).New(ctx, providers.GitHub, providers.Config{ClientID: "cid"})
		}}
		if builds != 0 {
			t.Fatalf("built %d times before any use", builds)
		}
		first, err := l.get(ctx)
		for range 3 {
			p, err2 := l.get(ctx)
			if p != first || (err == nil) != (err2 == nil) {
				t.Fatalf("a later use answered %v %v, the first %v %v", p, err2, first, err)
			}
		}
		if builds != 1 || (err != nil) != fail {
			t.Fatalf("failing %v: built %d times, err %v", fail, builds, err)
		}
	}
}
