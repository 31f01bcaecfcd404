package sso

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// This file is the Go face of connection administration, for callers in
// this process that configure connections without an HTTP request (dev
// mode's seed, which points the demo organization at the built-in identity
// providers every time it starts).

// SAMLSettings are what EnsureSAML sets on a SAML connection.
type SAMLSettings struct {
	DisplayName      string
	IdentityProvider string // "" is generic
	IdPEntityID      string
	IdPSSOURL        string
	// Certificate (PEM) becomes the connection's only verification
	// certificate: the identity provider's key may be new.
	Certificate      string
	AttributeMapping map[string]any
	// GroupRoles are the saml_group_implicit_role_assignments.
	GroupRoles []GroupRoleAssignment
}

// OIDCSettings are what EnsureOIDC sets on an OIDC connection; the
// endpoints are given, not discovered, so no HTTP call is made.
type OIDCSettings struct {
	DisplayName      string
	IdentityProvider string
	Issuer           string
	ClientID         string
	ClientSecret     string
	AuthorizationURL string
	TokenURL         string
	UserinfoURL      string
	JWKSURL          string
}

// EnsureSAML makes the organization have a SAML connection named
// set.DisplayName with these settings, creating it (with a generated
// signing key) when missing, and returns its id. Its status follows from
// the settings as for the API.
func (s *Service) EnsureSAML(ctx context.Context, projectID, orgID string, set SAMLSettings) (string, error) {
	return s.ensure(ctx, projectID, orgID, KindSAML, set.DisplayName, set.IdentityProvider, func(c *conn) error {
		if c.SAML == nil {
			key, err := s.newKey(newKeyID("saml-signing-key", c), c.ID, nil, s.d.Clock.Now())
			if err != nil {
				return err
			}
			c.SAML = &samlConfig{SigningKeys: []storedKey{key}}
		}
		// The operator's choice, as its URLs are (checkProvisionedURL): not
		// held to the upload's validity rule, which a clock set apart
		// from the certificate's issuer (the dev seed's tests) would fail.
		cert, err := verificationCert(newKeyID("saml-verification-key", c), set.Certificate, time.Time{})
		if err != nil {
			return err
		}
		c.SAML.IdPEntityID, c.SAML.IdPSSOURL, c.SAML.AttributeMapping = set.IdPEntityID, set.IdPSSOURL, set.AttributeMapping
		c.SAML.VerificationCertificates = []storedCert{cert}
		c.SAML.GroupRoles = set.GroupRoles
		return nil
	})
}

// EnsureOIDC makes the organization have an OIDC connection named
// set.DisplayName with these settings (the client secret sealed), and
// returns its id.
func (s *Service) EnsureOIDC(ctx context.Context, projectID, orgID string, set OIDCSettings) (string, error) {
	return s.ensure(ctx, projectID, orgID, KindOIDC, set.DisplayName, set.IdentityProvider, func(c *conn) error {
		if c.OIDC == nil {
			c.OIDC = &oidcConfig{AttributeMapping: map[string]any{}}
		}
		secret := set.ClientSecret
		issuer, authz, token, userinfo, jwks := set.Issuer, set.AuthorizationURL, set.TokenURL, set.UserinfoURL, set.JWKSURL
		return s.applyOIDC(c, oidcUpdate{ClientID: &set.ClientID, ClientSecret: &secret, Issuer: &issuer,
			AuthorizationURL: &authz, TokenURL: &token, UserinfoURL: &userinfo, JWKSURL: &jwks}, nil, checkProvisionedURL)
	})
}

func (s *Service) ensure(ctx context.Context, projectID, orgID, kind, name, idp string, fill func(c *conn) error) (string, error) {
	p, err := s.d.Projects.ByID(ctx, projectID)
	if err != nil {
		return "", fmt.Errorf("sso: ensure connection: %w", err)
	}
	if idp, err = checkIdentityProvider(idp); err != nil {
		return "", err
	}
	var id string
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		// The connection is found among the organization's and written back
		// as read: its lock, which every connection change takes first
		// (loadLocked), keeps a concurrent change from being overwritten.
		// An organization that is not there is GetIn's to answer.
		if err := s.d.DB.LockRow(ctx, q, "organizations", "organization_id", orgID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if _, err := s.d.Orgs.GetIn(ctx, q, projectID, orgID); err != nil {
			return fmt.Errorf("sso: ensure connection: %w", err)
		}
		conns, err := s.list(ctx, q, projectID, orgID)
		if err != nil {
			return err
		}
		var c *conn
		for _, have := range conns {
			if have.Kind == kind && have.DisplayName == name {
				c = have
			}
		}
		fresh := c == nil
		if fresh {
			c = &conn{ID: newConnectionID(kind, p.Env), ProjectID: projectID, OrganizationID: orgID, Kind: kind,
				DisplayName: name}
		}
		c.IdentityProvider = idp
		if err := fill(c); err != nil {
			return err
		}
		id = c.ID
		if fresh {
			return s.insert(ctx, q, c)
		}
		return s.save(ctx, q, c)
	})
	return id, err
}

// SPMetadata is the service-provider metadata (XML) of the SAML connection
// whose entity id is entityID, as served at that URL: an identity provider
// in this process reads it without a request to itself.
func (s *Service) SPMetadata(ctx context.Context, entityID string) ([]byte, error) {
	base := s.d.BaseURL()
	connID, ok := strings.CutPrefix(entityID, metadataURL(base, ""))
	if !ok || connID == "" {
		return nil, apierr.New(apierr.SSOConnectionNotFound)
	}
	c, err := s.loadAny(ctx, "", connID)
	if err != nil {
		return nil, err
	}
	if c.Kind != KindSAML {
		return nil, apierr.New(apierr.SSOConnectionNotFound)
	}
	body, err := xml.Marshal(spMetadata(c, base, s.d.Clock.Now()))
	if err != nil {
		return nil, fmt.Errorf("sso: metadata: %w", err)
	}
	return body, nil
}
