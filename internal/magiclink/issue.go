package magiclink

import (
	"context"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Issue stores, inside q, a new magic link for member m of org and
// returns its token and id, for flows that deliver the link in an email
// of their own (in the same transaction, notify.SendOnce). A password
// reset asked for by someone without a password verifies the address
// this way: the link is redeemed by Authenticate like any other (PKCE
// challenge included), and the widget then asks for the new password
// under the fresh session.
func (s *Service) Issue(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	m *organization.Member, challenge string, minutes int) (token, id string, err error) {
	purpose := "login"
	if m.Status != organization.StatusActive {
		purpose = "signup"
	}
	return s.insert(ctx, q, p, org, m, purpose, challenge, minutes)
}

// Burn makes an issued link unusable (its email could not be sent).
func (s *Service) Burn(ctx context.Context, id string) { s.burn(ctx, id) }
