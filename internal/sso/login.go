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
	Kind           string `json:"kind"`
}

// TokenType is the stytch_token_type of the customer page's redirect.
const TokenType = "sso"

// finish turns a verified identity into a member of the connection's
// organization and a single-use token for the customer's page:
//   - an identity seen before is its registered member;
//   - otherwise the member with the identity's email, or, when the
//     organization's sso_jit_provisioning allows this connection, a new
//     member (the signup redirect URL is used then);
//
// and the member gets (or keeps) a registration for the identity. The email
// an identity provider asserts for its organization counts as verified.
func (s *Service) finish(ctx context.Context, r *http.Request, c *conn, st *flowState, id identity) (string, error) {
	var target string
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		org, err := s.d.Orgs.GetIn(ctx, q, c.ProjectID, c.OrganizationID)
		if err != nil {
			return err
		}
		m, regID, created, err := s.member(ctx, q, c, org, id)
		if err != nil {
			return err
		}
		if err := s.d.Orgs.MarkEmailVerified(ctx, q, m); err != nil {
			return err
		}
		attrs, err := json.Marshal(nonNilMap(id.Attributes))
		if err != nil {
			return fmt.Errorf("sso: encode attributes: %w", err)
		}
		now := store.Millis(s.d.Clock.Now())
		fresh := regID == ""
		if fresh {
			regID = newKeyID("registration", c)
		}
		// Each login's tokens replace the last ones: they are the newest
		// the provider issued.
		tokens, err := s.sealTokens(regID, id.Tokens)
		if err != nil {
			return err
		}
		if fresh {
			_, err = q.ExecContext(ctx, `INSERT INTO sso_registrations (registration_id, project_id, organization_id,
				connection_id, member_id, external_id, sso_attributes, tokens, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$9)`,
				regID, c.ProjectID, c.OrganizationID, c.ID, m.MemberID, id.ExternalID, string(attrs), tokens, now)
		} else {
			_, err = q.ExecContext(ctx, `UPDATE sso_registrations SET sso_attributes = $1, tokens = $2, updated_at = $3
				WHERE registration_id = $4`, string(attrs), tokens, now, regID)
		}
		if err != nil {
			return fmt.Errorf("sso: write registration: %w", err)
		}
		if err := s.syncMember(ctx, q, m.MemberID); err != nil {
			return err
		}
		token, err := s.d.Flows.IssueIn(ctx, q, flowtoken.Issue{Kind: kindToken, ProjectID: c.ProjectID, TTL: tokenTTL,
			Challenge: st.Challenge, Data: tokenData{OrganizationID: org.OrganizationID, MemberID: m.MemberID,
				ConnectionID: c.ID, RegistrationID: regID, ExternalID: id.ExternalID, Kind: c.Kind}})
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

// member finds or provisions the member an identity logs in as; regID is
// the identity's existing registration ("" if none).
func (s *Service) member(ctx context.Context, q store.Querier, c *conn, org *organization.Organization, id identity) (
	m *organization.Member, regID string, created bool, err error) {
	var memberID string
	err = q.QueryRowContext(ctx, `SELECT registration_id, member_id FROM sso_registrations
		WHERE connection_id = $1 AND external_id = $2`, c.ID, id.ExternalID).Scan(&regID, &memberID)
	switch {
	case err == nil:
		m, err = s.d.Orgs.Member(ctx, q, c.ProjectID, memberID)
	case errors.Is(err, sql.ErrNoRows):
		if id.Email == "" {
			return nil, "", false, apierr.New(apierr.SSOEmailMissing)
		}
		m, err = s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, id.Email)
		if errors.Is(err, store.ErrNotFound) {
			if err := checkJIT(org, c.ID); err != nil {
				return nil, "", false, err
			}
			created = true
			m, err = s.d.Orgs.CreateMember(ctx, q, org, envOf(c), organization.NewMember{Email: id.Email, Name: id.Name,
				Status: organization.StatusActive})
		}
	}
	if err != nil {
		return nil, "", false, fmt.Errorf("sso: member: %w", err)
	}
	if m.Status == organization.StatusDeleted {
		return nil, "", false, apierr.New(apierr.InactiveMember)
	}
	return m, regID, created, nil
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
	return apierr.New(apierr.SSOJITProvisioningNotAllowed)
}

// envOf is the environment of a connection, read from its id.
func envOf(c *conn) ids.Env {
	if strings.Contains(c.ID, "-"+string(ids.Live)+"-") {
		return ids.Live
	}
	return ids.Test
}
