package sso

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/providertokens"
	"github.com/latchkey/latchkey/internal/store"
)

// identity is who the identity provider says logged in.
type identity struct {
	Kind       string // saml or oidc
	ExternalID string // NameID or subject
	// Transient says ExternalID is a transient NameID (nameIDTransient):
	// it names no one lastingly, so it never finds a member, and the
	// registration under it goes to whoever it names now (member,
	// register).
	Transient  bool
	Email      string // normalised; "" when the provider sent none
	Name       string
	Groups     []string
	Attributes map[string]any
	// Tokens are an OIDC login's provider tokens (nil for SAML), kept
	// sealed on the registration for the backend's oidc_providers call.
	Tokens *providertokens.Tokens
}

// tokenData is what an SSO token redeems to.
type tokenData struct {
	OrganizationID string `json:"organization_id"`
	MemberID       string `json:"member_id"`
	ConnectionID   string `json:"connection_id"`
	RegistrationID string `json:"registration_id"`
	ExternalID     string `json:"external_id"`
	// Kind is the protocol the identity came by (saml or oidc), also for
	// a login through an external connection.
	Kind string `json:"kind"`
	// ResetSessions says the callback's assertion was the first proof of
	// the member's address and ended access that came in without one, and
	// with it the member's sessions (organization.Store.MarkEmailAsserted):
	// the authenticate answer's reset_session.
	ResetSessions bool `json:"reset_sessions,omitempty"`
}

// TokenType is the stytch_token_type of the customer page's redirect.
const TokenType = "sso"

// finish turns a verified identity into a member of the connection c's
// organization and a single-use token for the customer's page (c is the
// external connection for a login through one: its organization, JIT
// rule, registration and roles apply, id came from its source):
//   - an identity seen before is its registered member;
//   - otherwise the member with the identity's email, or, when the
//     organization's sso_jit_provisioning allows this connection, a new
//     member (the signup redirect URL is used then);
//
// and the member gets (or keeps) a registration for the identity. The email
// an identity provider asserts for its organization counts as verified
// there, though not as proven to other organizations (MarkEmailAsserted).
func (s *Service) finish(ctx context.Context, r *http.Request, c *conn, st *flowState, id identity) (string, error) {
	var target string
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		org, err := s.d.Orgs.GetIn(ctx, q, c.ProjectID, c.OrganizationID)
		if err != nil {
			return err
		}
		m, created, err := s.member(ctx, q, c, org, id)
		if err != nil {
			return err
		}
		regID, owner, err := s.register(ctx, q, c, m.MemberID, id)
		if err != nil {
			return err
		}
		if owner != m.MemberID {
			// A first login of the identity in another tab registered it
			// after member looked: go on as its member, as a later login.
			if m, err = s.registeredMember(ctx, q, c, owner); err != nil {
				return err
			}
			created = false
		}
		if err := s.keepTokens(ctx, q, regID, id.Tokens); err != nil {
			return err
		}
		// Verified for this organization, not proven to others: its admin
		// runs the identity provider (organization.MarkEmailAsserted).
		ended, err := s.d.Orgs.MarkEmailAsserted(ctx, q, m)
		if err != nil {
			return err
		}
		if err := s.syncMember(ctx, q, m.MemberID); err != nil {
			return err
		}
		token, err := s.d.Flows.IssueIn(ctx, q, flowtoken.Issue{Kind: kindToken, ProjectID: c.ProjectID, TTL: tokenTTL,
			Challenge: st.Challenge, Data: tokenData{OrganizationID: org.OrganizationID, MemberID: m.MemberID,
				ConnectionID: c.ID, RegistrationID: regID, ExternalID: id.ExternalID, Kind: id.Kind,
				ResetSessions: ended}})
		if err != nil {
			return err
		}
		dest := st.LoginURL
		if created {
			dest = st.SignupURL
		}
		target, err = flowtoken.TokenLink(dest, TokenType, token, nil)
		return err
	})
	return target, err
}

// member finds or provisions the member an identity logs in as.
func (s *Service) member(ctx context.Context, q store.Querier, c *conn, org *organization.Organization, id identity) (
	m *organization.Member, created bool, err error) {
	var memberID string
	err = sql.ErrNoRows
	if !id.Transient {
		// A transient NameID registered before may be another person's
		// (SAML core 8.3.8): only the address finds the member then.
		err = q.QueryRowContext(ctx, `SELECT member_id FROM sso_registrations WHERE connection_id = $1 AND external_id = $2`,
			c.ID, id.ExternalID).Scan(&memberID)
	}
	switch {
	case err == nil:
		m, err := s.registeredMember(ctx, q, c, memberID)
		return m, false, err
	case !errors.Is(err, sql.ErrNoRows):
		return nil, false, fmt.Errorf("sso: registration: %w", err)
	case id.Email == "" && id.Kind == KindOIDC:
		return nil, false, apierr.New(apierr.OIDCResponseEmailMissing)
	case id.Email == "":
		return nil, false, apierr.New(apierr.InvalidSAMLResponseEmail)
	}
	m, err = s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, id.Email)
	if errors.Is(err, store.ErrNotFound) {
		if err := checkJIT(org, c.ID); err != nil {
			return nil, false, err
		}
		m, created, err = s.d.Orgs.ProvisionMember(ctx, q, org, envOf(c), organization.NewMember{Email: id.Email,
			Name: id.Name, Status: organization.StatusActive})
	}
	if err != nil {
		return nil, false, fmt.Errorf("sso: member: %w", err)
	}
	if m.Status == organization.StatusDeleted {
		return nil, false, apierr.New(apierr.InactiveMember)
	}
	return m, created, nil
}

// registeredMember loads the member an identity is registered to, who
// must not be deleted.
func (s *Service) registeredMember(ctx context.Context, q store.Querier, c *conn, memberID string) (*organization.Member, error) {
	m, err := s.d.Orgs.Member(ctx, q, c.ProjectID, memberID)
	if err != nil {
		return nil, fmt.Errorf("sso: member: %w", err)
	}
	if m.Status == organization.StatusDeleted {
		return nil, apierr.New(apierr.InactiveMember)
	}
	return m, nil
}

// register records the identity's registration to memberID, or refreshes
// the attributes of the one it has, and returns the registration's id and
// member. Another first login of the identity (a second tab) may register
// it after member looked: the upsert (on PostgreSQL, once that login's
// transaction ends) returns that registration and its member, where an
// insert would fail on the (connection_id, external_id) index and abort
// this login's transaction.
//
// The member then keeps only this registration at the connection: one
// under another NameID or subject is an earlier login of the same person
// (transient NameIDs, a changed nameid_format, a re-created IdP app), and
// its stored attributes, groups included, are no longer what the
// identity provider says. Kept, it would go on granting the group roles
// of that older login (samlGrants) and, with transient NameIDs, add a row
// per login.
func (s *Service) register(ctx context.Context, q store.Querier, c *conn, memberID string, id identity) (regID, owner string, err error) {
	attrs, err := json.Marshal(nonNilMap(id.Attributes))
	if err != nil {
		return "", "", fmt.Errorf("sso: encode attributes: %w", err)
	}
	// A transient NameID's row goes to the member it names now (member
	// found them by address): a registration under it is no one's lasting
	// identity, and kept with its earlier member it would go on granting
	// them this login's groups and answer for their tokens.
	reassign, previous := "", ""
	if id.Transient {
		reassign = ", member_id = excluded.member_id"
		// Whoever the value named before loses it: their summary is
		// rewritten below, or it would list the row as theirs.
		err := q.QueryRowContext(ctx, `SELECT member_id FROM sso_registrations WHERE connection_id = $1 AND external_id = $2`,
			c.ID, id.ExternalID).Scan(&previous)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return "", "", fmt.Errorf("sso: registration's member: %w", err)
		}
	}
	err = q.QueryRowContext(ctx, `INSERT INTO sso_registrations (registration_id, project_id, organization_id,
		connection_id, member_id, external_id, sso_attributes, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$8)
		ON CONFLICT (connection_id, external_id) DO UPDATE SET sso_attributes = excluded.sso_attributes,
		updated_at = excluded.updated_at`+reassign+`
		RETURNING registration_id, member_id`,
		newKeyID("registration", c), c.ProjectID, c.OrganizationID, c.ID, memberID, id.ExternalID, string(attrs),
		store.Millis(s.d.Clock.Now())).Scan(&regID, &owner)
	if err != nil {
		return "", "", fmt.Errorf("sso: write registration: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM sso_registrations WHERE connection_id = $1 AND member_id = $2
		AND registration_id <> $3`, c.ID, owner, regID); err != nil {
		return "", "", fmt.Errorf("sso: replace registrations: %w", err)
	}
	if previous != "" && previous != owner {
		if err := s.syncMember(ctx, q, previous); err != nil {
			return "", "", err
		}
	}
	return regID, owner, nil
}

// keepTokens stores an OIDC identity's provider tokens on its registration,
// sealed for that row. Each login's tokens replace the last ones: they
// are the newest the provider issued. Only a refresh token the provider
// did not issue again stays from before (providertokens.Tokens.
// KeepingRefresh). They are written apart from the registration's upsert
// (register) because the row they are sealed for is known only once that
// upsert returns it. The upsert locks the row until this transaction
// ends, so a concurrent login of the same identity reads the tokens this
// one writes, not those it replaces.
func (s *Service) keepTokens(ctx context.Context, q store.Querier, regID string, t *providertokens.Tokens) error {
	if t == nil {
		return nil // SAML
	}
	fresh := *t
	if fresh.RefreshToken == "" {
		var stored string
		err := q.QueryRowContext(ctx, `SELECT tokens FROM sso_registrations WHERE registration_id = $1`, regID).Scan(&stored)
		if err != nil {
			return fmt.Errorf("sso: previous tokens: %w", err)
		}
		prev, err := s.openTokens(regID, stored)
		if err != nil {
			return fmt.Errorf("sso: previous tokens: %w", err)
		}
		fresh = fresh.KeepingRefresh(prev)
	}
	tokens, err := s.sealTokens(regID, &fresh)
	if err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, `UPDATE sso_registrations SET tokens = $1 WHERE registration_id = $2`,
		tokens, regID); err != nil {
		return fmt.Errorf("sso: keep tokens: %w", err)
	}
	return nil
}

// checkJIT applies sso_jit_provisioning to someone not yet a member.
func checkJIT(org *organization.Organization, connID string) error {
	switch org.SSOJITProvisioning {
	case organization.AllAllowed:
		return nil
	case organization.Restricted:
		if slices.Contains(org.SSOJITProvisioningAllowedConnections, connID) {
			return nil
		}
	}
	return apierr.New(apierr.InvalidConnectionForJITProvisioning)
}

// envOf is the environment of a connection, read from its id.
func envOf(c *conn) ids.Env {
	if strings.Contains(c.ID, "-"+string(ids.Live)+"-") {
		return ids.Live
	}
	return ids.Test
}
