package sso

import (
	"context"
	"errors"

	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// memberConnections lists the active connections of the organizations
// email is a member of. Pending and invited members count: an SSO login
// by their address finds them and activates them (finish). Deleted ones
// do not (MembersByEmail leaves them out): the login refuses them.
func (s *Service) memberConnections(ctx context.Context, q store.Querier, projectID, email string) ([]DiscoveredConnection, error) {
	members, err := s.d.Orgs.MembersByEmail(ctx, q, projectID, email)
	if err != nil {
		return nil, err
	}
	out := []DiscoveredConnection{}
	for _, m := range members {
		o, err := s.d.Orgs.GetIn(ctx, q, projectID, m.OrganizationID)
		if err != nil {
			return nil, err
		}
		for _, c := range o.SSOActiveConnections {
			out = append(out, DiscoveredConnection(c))
		}
	}
	return out, nil
}

// jitConnections lists the active connections through which email could
// join an organization by SSO JIT provisioning: organizations that list
// its domain in email_allowed_domains and that an active member with a
// proven address at that domain vouches for (WithAllowedDomain), and of
// each only the connections its sso_jit_provisioning admits, by the rule
// the login applies (checkJIT). The widget starts the only connection
// listed at once, so one listed without that condition would send the
// domain's people to the identity provider of whoever created an
// organization allowing their domain.
//
// Where an organization claims the domain (claimed_email_domains, set by
// the customer's backend), only its connections are listed: the claim
// keeps the domain's people out of every other organization, as email
// discovery does (claimedElsewhere).
//
// Only called when email has no membership with a connection, so an
// organization that still holds it as a member holds it deleted. It is
// listed all the same, as for a stranger at the domain: this route answers
// anyone with the public token, and leaving it out told who used to be a
// member. The list is only what the login screen offers; the SSO login
// itself still refuses the deleted member (inactive_member).
func (s *Service) jitConnections(ctx context.Context, q store.Querier, projectID, email string) ([]DiscoveredConnection, error) {
	domain := emailaddr.Domain(email)
	orgs, err := s.d.Orgs.WithAllowedDomain(ctx, q, projectID, domain)
	if err != nil || len(orgs) == 0 {
		return []DiscoveredConnection{}, err
	}
	claimant, err := s.d.Orgs.ClaimantOf(ctx, q, projectID, domain)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	out := []DiscoveredConnection{}
	for _, o := range orgs {
		if claimant == "" || claimant == o.OrganizationID {
			out = append(out, jitAdmitted(o)...)
		}
	}
	return out, nil
}

// jitAdmitted is the organization's active connections through which
// someone not yet a member may be provisioned.
func jitAdmitted(o *organization.Organization) []DiscoveredConnection {
	var out []DiscoveredConnection
	for _, c := range o.SSOActiveConnections {
		if checkJIT(o, c.ConnectionID) == nil {
			out = append(out, DiscoveredConnection(c))
		}
	}
	return out
}
