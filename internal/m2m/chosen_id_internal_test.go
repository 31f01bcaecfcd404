package m2m

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ids"
)

// checkChosenID refuses every id another kind of token subject is minted
// with (ids.New's member, user and organization kinds, in either
// environment and any case), and takes ids that only mention them.
func TestCheckChosenIDSubjectPrefixes(t *testing.T) {
	for _, id := range []string{
		ids.New("member", ids.Test), ids.New("member", ids.Live), ids.New("user", ids.Test),
		ids.New("organization", ids.Live), "member-", "Member-x", "USER-x", "organization-x",
	} {
		if err := checkChosenID(id); !apierr.Is(err, apierr.InvalidRequest) {
			t.Errorf("%q: %v, want invalid_request", id, err)
		}
	}
	for _, id := range []string{"member", "user", "members-x", "users-x", "x-member-y", ids.New("m2m-client", ids.Test)} {
		if err := checkChosenID(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
}
