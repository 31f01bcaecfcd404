package sso

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

type samlUpdate struct {
	IdPEntityID                           *string                `json:"idp_entity_id"`
	DisplayName                           *string                `json:"display_name"`
	AttributeMapping                      map[string]any         `json:"attribute_mapping"`
	X509Certificate                       *string                `json:"x509_certificate"`
	IdPSSOURL                             *string                `json:"idp_sso_url"`
	SAMLConnectionImplicitRoleAssignments *[]RoleAssignment      `json:"saml_connection_implicit_role_assignments"`
	SAMLGroupImplicitRoleAssignments      *[]GroupRoleAssignment `json:"saml_group_implicit_role_assignments"`
	AlternativeAudienceURI                *string                `json:"alternative_audience_uri"`
	IdentityProvider                      *string                `json:"identity_provider"`
	SigningPrivateKey                     *string                `json:"signing_private_key"`
	NameIDFormat                          *string                `json:"nameid_format"`
	AlternativeACSURL                     *string                `json:"alternative_acs_url"`
	IdPInitiatedAuthDisabled              *bool                  `json:"idp_initiated_auth_disabled"`
	SAMLEncryptionPrivateKey              *string                `json:"saml_encryption_private_key"`
	AllowGatewayCallback                  *bool                  `json:"allow_gateway_callback"`
}

// UpdateSAML handles PUT of a SAML connection. A connection becomes active
// once it has the identity provider's entity id, SSO URL and a
// verification certificate. Changing its implicit role assignments also
// takes stytch.organization's update.settings.implicit-roles
// (organization.ImplicitRolesGrant).
func (h Handlers) UpdateSAML(r *http.Request) (any, error) {
	var u samlUpdate
	if err := httpapi.Decode(r, &u); err != nil {
		return nil, err
	}
	who, err := h.caller(r, actionUpdate)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	t := changeTarget{who.Project.ID, who.Organization.OrganizationID, r.PathValue("connection_id"), KindSAML}
	grant := who.AuthorizeImplicitRoles(ctx, u.SAMLConnectionImplicitRoleAssignments != nil || u.SAMLGroupImplicitRoleAssignments != nil)
	var c *conn
	err = h.s.d.DB.Tx(ctx, func(q store.Querier) error {
		// The policy lock before the organization's and the connection's
		// rows (organization.Store.LockRoles): the assignments are checked
		// against the policy inside this transaction, which a change
		// removing one of their roles then waits for, or is seen by.
		if err := h.s.d.Orgs.LockRoles(ctx, q, t.projectID, u.roleIDs()); err != nil {
			return err
		}
		var err error
		c, err = h.s.changeTx(ctx, q, t, func(ctx context.Context, c *conn) error {
			// Against the lists read under the connection's lock: sending
			// back the stored ones needs no more than stytch.sso update.
			if err := grant.Check(organization.AssignmentsChanged(u.SAMLConnectionImplicitRoleAssignments, c.SAML.ConnectionRoles) ||
				organization.AssignmentsChanged(u.SAMLGroupImplicitRoleAssignments, c.SAML.GroupRoles)); err != nil {
				return err
			}
			if err := h.s.checkRoleAssignments(ctx, q, c, u); err != nil {
				return err
			}
			return h.s.applySAML(c, u)
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return h.samlAnswer(c), nil
}

// roleIDs are the role ids the update assigns.
func (u samlUpdate) roleIDs() []string {
	return assignedRoleIDs(u.SAMLConnectionImplicitRoleAssignments, u.SAMLGroupImplicitRoleAssignments)
}

// assignedRoleIDs are the role ids of a connection's and a group's
// assignment lists (nil lists are left as they are, so assign nothing).
func assignedRoleIDs(conn *[]RoleAssignment, group *[]GroupRoleAssignment) []string {
	var out []string
	for _, a := range deref(conn) {
		out = append(out, a.RoleID)
	}
	for _, a := range deref(group) {
		out = append(out, a.RoleID)
	}
	return out
}

// maxVerificationCertificates is the API family's limit on a SAML
// connection's verification certificates: room for a rotation (the new
// certificate uploaded before the old one is deleted), not an archive.
const maxVerificationCertificates = 5

// maxEncryptionKeys is the API family's limit on a SAML connection's
// encryption private keys ("a maximum of 5 private keys per connection"),
// for the same reason: room for a rotation.
const maxEncryptionKeys = 5

func (s *Service) applySAML(c *conn, u samlUpdate) error {
	cfg, now := c.SAML, s.d.Clock.Now()
	if u.IdPInitiatedAuthDisabled != nil && !*u.IdPInitiatedAuthDisabled {
		return apierr.Invalid("idp_initiated_auth_disabled",
			"IdP-initiated logins are not supported: every SAML login starts at /v1/public/sso/start.")
	}
	if err := updateDisplayName(&c.DisplayName, u.DisplayName); err != nil {
		return err
	}
	if u.IdentityProvider != nil {
		idp, err := checkIdentityProvider(*u.IdentityProvider)
		if err != nil {
			return err
		}
		c.IdentityProvider = idp
	}
	if err := checkSAMLLengths(u); err != nil {
		return err
	}
	if u.IdPEntityID != nil {
		cfg.IdPEntityID = strings.TrimSpace(*u.IdPEntityID)
	}
	if u.IdPSSOURL != nil {
		v := strings.TrimSpace(*u.IdPSSOURL)
		if v != "" && !isHTTPURL(v) {
			return apierr.Invalid("idp_sso_url", "idp_sso_url must be an http or https URL.")
		}
		cfg.IdPSSOURL = v
	}
	if u.AttributeMapping != nil {
		if err := checkAttributeMapping(u.AttributeMapping, "an attribute"); err != nil {
			return err
		}
		cfg.AttributeMapping = u.AttributeMapping
	}
	if u.X509Certificate != nil && strings.TrimSpace(*u.X509Certificate) != "" {
		if err := addVerificationCerts(c, []string{*u.X509Certificate}, now); err != nil {
			return err
		}
	}
	if u.SigningPrivateKey != nil && strings.TrimSpace(*u.SigningPrivateKey) != "" {
		key, err := parsePrivateKey(*u.SigningPrivateKey)
		if err != nil {
			return apierr.Invalid("signing_private_key", "signing_private_key must be an RSA private key of at least 2048 bits in PEM.")
		}
		k, err := s.newKey(newKeyID("saml-signing-key", c), c.ID, key, now)
		if err != nil {
			return err
		}
		// The uploaded key replaces the generated one: requests are
		// signed with one key, and metadata shows the one in use.
		cfg.SigningKeys = []storedKey{k}
	}
	if u.SAMLEncryptionPrivateKey != nil && strings.TrimSpace(*u.SAMLEncryptionPrivateKey) != "" {
		key, err := parsePrivateKey(*u.SAMLEncryptionPrivateKey)
		if err != nil {
			return apierr.Invalid("saml_encryption_private_key", "saml_encryption_private_key must be an RSA private key of at least 2048 bits in PEM.")
		}
		// The same key again is no new one (as with certificates): the
		// update leaves the list as it is, limit or not.
		held, err := holdsKey(cfg.EncryptionKeys, &key.PublicKey)
		if err != nil {
			return err
		}
		if !held {
			if len(cfg.EncryptionKeys) >= maxEncryptionKeys {
				return apierr.New(apierr.TooManyEncryptionCertificates)
			}
			k, err := s.newKey(newKeyID("saml-encryption-key", c), c.ID, key, now)
			if err != nil {
				return err
			}
			cfg.EncryptionKeys = append(cfg.EncryptionKeys, k)
		}
	}
	if u.SAMLConnectionImplicitRoleAssignments != nil {
		cfg.ConnectionRoles = *u.SAMLConnectionImplicitRoleAssignments
	}
	if u.SAMLGroupImplicitRoleAssignments != nil {
		cfg.GroupRoles = *u.SAMLGroupImplicitRoleAssignments
	}
	for _, f := range []struct {
		in  *string
		dst *string
	}{{u.AlternativeAudienceURI, &cfg.AlternativeAudienceURI}, {u.NameIDFormat, &cfg.NameIDFormat},
		{u.AlternativeACSURL, &cfg.AlternativeACSURL}} {
		if f.in != nil {
			*f.dst = strings.TrimSpace(*f.in)
		}
	}
	if v := cfg.AlternativeACSURL; u.AlternativeACSURL != nil && v != "" && !isHTTPURL(v) {
		// Sent to the identity provider as the AuthnRequest's ACS URL.
		return apierr.Invalid("alternative_acs_url", "alternative_acs_url must be an http or https URL.")
	}
	if u.AllowGatewayCallback != nil {
		cfg.AllowGatewayCallback = *u.AllowGatewayCallback
	}
	return nil
}

// checkSAMLLengths refuses an update of a SAML connection setting a text
// over its bound (bounds.go). The PEM texts are bounded as sent, before
// anything parses them.
func checkSAMLLengths(u samlUpdate) error {
	return checkTrimmed(bounded{"idp_entity_id", u.IdPEntityID, MaxIDBytes}, bounded{"idp_sso_url", u.IdPSSOURL, MaxURLBytes},
		bounded{"alternative_audience_uri", u.AlternativeAudienceURI, MaxURLBytes},
		bounded{"alternative_acs_url", u.AlternativeACSURL, MaxURLBytes}, bounded{"nameid_format", u.NameIDFormat, MaxIDBytes},
		bounded{"x509_certificate", u.X509Certificate, MaxPEMBytes}, bounded{"signing_private_key", u.SigningPrivateKey, MaxPEMBytes},
		bounded{"saml_encryption_private_key", u.SAMLEncryptionPrivateKey, MaxPEMBytes})
}

// addVerificationCerts adds the identity provider's certificates texts to
// c's verification certificates, all or none: each must be one
// verificationCert accepts, and the distinct new ones must fit in
// maxVerificationCertificates with those held. A certificate held already
// (or listed twice) is no new one: it leaves the list as it is, limit or
// not.
func addVerificationCerts(c *conn, texts []string, now time.Time) error {
	held := func(list []storedCert, pemText string) bool {
		return slices.ContainsFunc(list, func(v storedCert) bool { return v.PEM == pemText })
	}
	var add []storedCert
	for _, text := range texts {
		cert, err := verificationCert(newKeyID("saml-verification-key", c), text, now)
		if err != nil {
			return err
		}
		cert.CreatedAt = store.Millis(now)
		if !held(c.SAML.VerificationCertificates, cert.PEM) && !held(add, cert.PEM) {
			add = append(add, cert)
		}
	}
	if len(add) > 0 && len(c.SAML.VerificationCertificates)+len(add) > maxVerificationCertificates {
		return apierr.New(apierr.TooManySSOVerificationCertificates)
	}
	c.SAML.VerificationCertificates = append(c.SAML.VerificationCertificates, add...)
	return nil
}

// checkRoleAssignments refuses SAML implicit role assignments naming a
// role that neither the project policy nor the organization's custom roles
// define, or a group assignment without a group (checkImplicitRoles).
func (s *Service) checkRoleAssignments(ctx context.Context, q store.Querier, c *conn, u samlUpdate) error {
	conn, group := deref(u.SAMLConnectionImplicitRoleAssignments), deref(u.SAMLGroupImplicitRoleAssignments)
	if len(conn) == 0 && len(group) == 0 {
		return nil
	}
	org, err := s.d.Orgs.GetIn(ctx, q, c.ProjectID, c.OrganizationID)
	if err != nil {
		return fmt.Errorf("sso: organization of connection: %w", err)
	}
	return s.checkImplicitRoles(ctx, q, org,
		[2]string{"saml_connection_implicit_role_assignments", "saml_group_implicit_role_assignments"}, conn, group)
}

// checkImplicitRoles is the one check of a connection's implicit role
// assignments (SAML and external connections): every role must be one
// the project policy or org's custom roles define, both read inside q
// under the policy lock (organization.Store.CheckRoles), and every group
// assignment must name a group. fields name the connection and group
// lists in errors.
func (s *Service) checkImplicitRoles(ctx context.Context, q store.Querier, org *organization.Organization, fields [2]string,
	conn []RoleAssignment, group []GroupRoleAssignment) error {
	if len(conn) > organization.MaxRoleAssignments {
		return organization.TooMany(fields[0], organization.MaxRoleAssignments)
	}
	if len(group) > organization.MaxRoleAssignments {
		return organization.TooMany(fields[1], organization.MaxRoleAssignments)
	}
	connIDs, groupIDs := make([]string, 0, len(conn)), make([]string, 0, len(group))
	for _, a := range conn {
		connIDs = append(connIDs, a.RoleID)
	}
	for _, a := range group {
		if strings.TrimSpace(a.Group) == "" {
			return apierr.Invalid(fields[1], "Every group assignment needs a group.")
		}
		if len(a.Group) > MaxIDBytes {
			return apierr.Invalid(fields[1], fmt.Sprintf("A group assignment's group must be at most %d bytes.", MaxIDBytes))
		}
		groupIDs = append(groupIDs, a.RoleID)
	}
	if err := s.d.Orgs.CheckRoles(ctx, q, org, fields[0], connIDs); err != nil {
		return err
	}
	return s.d.Orgs.CheckRoles(ctx, q, org, fields[1], groupIDs)
}

type urlUpdate struct {
	MetadataURL string `json:"metadata_url"`
}

// UpdateSAMLByURL handles PUT .../url: the identity provider's entity id,
// SSO URL (HTTP-Redirect binding) and signing certificates are read from
// its metadata document.
func (h Handlers) UpdateSAMLByURL(r *http.Request) (any, error) {
	var u urlUpdate
	if err := httpapi.Decode(r, &u); err != nil {
		return nil, err
	}
	// Authorized before anything else, the metadata fetch included: a
	// caller who may not update the connection makes no outbound request.
	t, err := h.authorizeFetch(r, KindSAML)
	if err != nil {
		return nil, err
	}
	if err := checkLength("metadata_url", u.MetadataURL, MaxURLBytes); err != nil {
		return nil, err
	}
	if err := h.s.checkFetchURL("metadata_url", u.MetadataURL); err != nil {
		return nil, err
	}
	if err := h.allowFetch(r.Context(), t); err != nil {
		return nil, err
	}
	// Fetched before the transaction: a slow identity provider must not
	// hold the database's writer.
	md, err := h.s.fetchMetadata(r.Context(), u.MetadataURL)
	if err != nil {
		return nil, err
	}
	c, err := h.changeIn(r.Context(), t, func(ctx context.Context, c *conn) error { return h.s.applyMetadata(c, md) })
	if err != nil {
		return nil, err
	}
	return h.samlAnswer(c), nil
}

type idpMetadata struct {
	entityID, ssoURL string
	// certs are the signing certificates to add (addVerificationCerts).
	certs []string
}

// applyMetadata sets c's identity provider from its metadata md: the
// entity id and SSO URL as an update naming them would, and the signing
// certificates added as uploads of them would be (all or none).
func (s *Service) applyMetadata(c *conn, md *idpMetadata) error {
	if err := s.applySAML(c, samlUpdate{IdPEntityID: &md.entityID, IdPSSOURL: &md.ssoURL}); err != nil {
		return err
	}
	return addVerificationCerts(c, md.certs, s.d.Clock.Now())
}

const bindingRedirect = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"

// entitiesDescriptor is metadata that wraps entities in an
// EntitiesDescriptor, as older Keycloak endpoints serve one identity
// provider's. Only its direct EntityDescriptor children are read.
type entitiesDescriptor struct {
	XMLName  xml.Name           `xml:"urn:oasis:names:tc:SAML:2.0:metadata EntitiesDescriptor"`
	Entities []entityDescriptor `xml:"urn:oasis:names:tc:SAML:2.0:metadata EntityDescriptor"`
}

// entityDescriptor is what readMetadata reads of an EntityDescriptor,
// and nothing more: gosaml2's types.EntityDescriptor also parses
// validUntil, as RFC 3339, so a schema-valid xs:dateTime without a zone
// (or any value it could not parse) refused the whole document. Its
// elements are matched in their namespaces (metadata, xmldsig): an
// element of another namespace is not the one SAML defines, and is passed
// over.
type entityDescriptor struct {
	XMLName  xml.Name `xml:"urn:oasis:names:tc:SAML:2.0:metadata EntityDescriptor"`
	EntityID string   `xml:"entityID,attr"`
	// IDPSSODescriptor gathers the endpoints and keys of every
	// IDPSSODescriptor of the entity (encoding/xml decodes a repeated
	// element into the one field).
	IDPSSODescriptor *idpSSODescriptor `xml:"urn:oasis:names:tc:SAML:2.0:metadata IDPSSODescriptor"`
}

type idpSSODescriptor struct {
	KeyDescriptors       []keyDescriptor `xml:"urn:oasis:names:tc:SAML:2.0:metadata KeyDescriptor"`
	SingleSignOnServices []ssoEndpoint   `xml:"urn:oasis:names:tc:SAML:2.0:metadata SingleSignOnService"`
}

type ssoEndpoint struct {
	Binding  string `xml:"Binding,attr"`
	Location string `xml:"Location,attr"`
}

type keyDescriptor struct {
	Use     string `xml:"use,attr"`
	KeyInfo struct {
		X509Data struct {
			// Certificates are base64 DER, as X509Certificate holds it.
			Certificates []string `xml:"http://www.w3.org/2000/09/xmldsig# X509Certificate"`
		} `xml:"http://www.w3.org/2000/09/xmldsig# X509Data"`
	} `xml:"http://www.w3.org/2000/09/xmldsig# KeyInfo"`
}

func (s *Service) fetchMetadata(ctx context.Context, u string) (*idpMetadata, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidSAMLMetadataURL, err)
	}
	res, err := s.http.Do(req)
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidSAMLMetadataURL, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, apierr.Wrap(apierr.InvalidSAMLMetadataURL, fmt.Errorf("metadata answered %d", res.StatusCode))
	}
	body, err := io.ReadAll(res.Body) // capped by the guarded client: too long is an error
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidSAMLMetadataURL, err)
	}
	return s.readMetadata(body)
}

// readMetadata reads an identity provider's metadata document body (from
// a URL its organization's administrator names, so untrusted): its entity
// id, first HTTP-Redirect SSO URL and signing certificates, or a catalogue
// error saying what the document lacks.
//
// The document's validUntil and cacheDuration are not read, and a
// validUntil passed does not refuse it: the document is fetched once, live,
// over HTTPS from the URL the administrator names, and only three values
// are copied from it, which the administrator sees in the answer; static
// metadata templates identity providers hand out carry dates long passed.
// The certificates' own validity is checked (signingCerts).
func (s *Service) readMetadata(body []byte) (*idpMetadata, error) {
	ed, err := idpEntity(body)
	if err != nil {
		return nil, err
	}
	// Trimmed as applySAML stores them, and checked so: a blank entityID or
	// Location would otherwise be stored as "", leaving an active
	// connection pending and its logins refused, on a 200.
	md := &idpMetadata{entityID: strings.TrimSpace(ed.EntityID)}
	// The first HTTP-Redirect endpoint: metadata lists its preferred one
	// first.
	for _, sso := range ed.IDPSSODescriptor.SingleSignOnServices {
		if sso.Binding == bindingRedirect {
			md.ssoURL = strings.TrimSpace(sso.Location)
			break
		}
	}
	// Bounded as an update naming them would be (checkSAMLLengths), but
	// said of the metadata: this request has not sent those fields.
	if len(md.entityID) > MaxIDBytes {
		return nil, tooLongInMetadata("EntityDescriptor entityID", MaxIDBytes)
	}
	if len(md.ssoURL) > MaxURLBytes {
		return nil, tooLongInMetadata("HTTP-Redirect SingleSignOnService Location", MaxURLBytes)
	}
	if md.certs, err = s.signingCerts(ed.IDPSSODescriptor); err != nil {
		return nil, err
	}
	if md.entityID == "" || md.ssoURL == "" || len(md.certs) == 0 {
		return nil, apierr.New(apierr.InvalidXMLFromSAMLMetadataURL).WithMessage(
			"The metadata needs an entityID, an HTTP-Redirect SingleSignOnService and a signing certificate.")
	}
	// Said of the metadata here: applySAML would refuse it as the
	// idp_sso_url field, which this request has not sent.
	if !isHTTPURL(md.ssoURL) {
		return nil, apierr.New(apierr.InvalidXMLFromSAMLMetadataURL).WithMessage(
			"The metadata's HTTP-Redirect SingleSignOnService Location is not an absolute http or https URL.")
	}
	return md, nil
}

// idpEntity is the identity provider's EntityDescriptor in metadata body:
// the root element, or the one child of an EntitiesDescriptor root that
// has an IDPSSODescriptor. encoding/xml expands no DTD or custom entity
// (an unknown entity reference is an error), so a document cannot grow
// past the fetch's size cap while it is parsed.
func idpEntity(body []byte) (*entityDescriptor, error) {
	doc, err := newMetadataDoc(body)
	if err != nil {
		return nil, err
	}
	if err := repeatedAttribute(doc); err != nil {
		return nil, err
	}
	dec := doc.decoder()
	var root xml.StartElement
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, unreadableMetadata("no root element", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			root = se
			break
		}
	}
	var found []*entityDescriptor
	if root.Name.Local == "EntitiesDescriptor" {
		var all entitiesDescriptor
		if err := dec.DecodeElement(&all, &root); err != nil {
			return nil, unreadableMetadata("EntitiesDescriptor", err)
		}
		for i := range all.Entities {
			if all.Entities[i].IDPSSODescriptor != nil {
				found = append(found, &all.Entities[i])
			}
		}
	} else {
		var ed entityDescriptor
		if err := dec.DecodeElement(&ed, &root); err != nil {
			return nil, unreadableMetadata("EntityDescriptor", err)
		}
		if ed.IDPSSODescriptor != nil {
			found = append(found, &ed)
		}
	}
	switch len(found) {
	case 0:
		return nil, apierr.Wrap(apierr.InvalidXMLFromSAMLMetadataURL, fmt.Errorf("no IDPSSODescriptor in <%s>", root.Name.Local))
	case 1:
		return found[0], nil
	}
	// A federation's aggregate: which of its identity providers is meant
	// is not ours to guess.
	return nil, apierr.New(apierr.InvalidXMLFromSAMLMetadataURL).WithMessage(fmt.Sprintf("The metadata describes %d identity "+
		"providers (an EntitiesDescriptor): give the metadata URL of the identity provider's own entity.", len(found)))
}

// unreadableMetadata is the refusal of metadata encoding/xml could not
// decode (at where): the catalogue error a decoder's CharsetReader gave
// (metadataDoc), which says what is wrong, else the generic one with err
// as its cause.
func unreadableMetadata(where string, err error) error {
	if ae := (*apierr.Error)(nil); errors.As(err, &ae) {
		return ae
	}
	return apierr.Wrap(apierr.InvalidXMLFromSAMLMetadataURL, fmt.Errorf("%s: %w", where, err))
}

// metadataAttributes are the attributes idpEntity's entityDescriptor
// reads, by element. encoding/xml fills each from any attribute of that local
// name, whatever its namespace, the last one winning.
var metadataAttributes = map[string][]string{
	"EntityDescriptor":    {"entityID"},
	"SingleSignOnService": {"Binding", "Location"},
	"KeyDescriptor":       {"use"},
}

// repeatedAttribute refuses metadata in which an element carries one of
// its metadataAttributes in a namespace or more than once: x:entityID
// after entityID would otherwise replace the identity provider's entity
// id with a value every namespace-aware reader of the document ignores.
// Other attributes are left alone (REFEDS' security contacts carry
// contactType and remd:contactType together). A document that does not
// tokenize is left for idpEntity to refuse.
func repeatedAttribute(doc *metadataDoc) error {
	dec := doc.decoder()
	for depth := 0; ; {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			for _, name := range metadataAttributes[t.Name.Local] {
				n, qualified := 0, false
				for _, a := range t.Attr {
					if a.Name.Local == name {
						n, qualified = n+1, qualified || a.Name.Space != ""
					}
				}
				if n > 1 || qualified {
					return apierr.New(apierr.InvalidXMLFromSAMLMetadataURL).WithMessage(fmt.Sprintf("The metadata's "+
						"<%s> carries its %s attribute in a namespace or more than once: it may carry one, in no namespace.", t.Name.Local, name))
				}
			}
		case xml.EndElement:
			if depth--; depth == 0 {
				return nil
			}
		}
	}
}

// signingCerts are the signing certificates of an identity provider's
// metadata that have not expired, each once, in the metadata's order: all
// of them, since during a rotation (ADFS's primary and secondary, Entra's
// next certificate) the identity provider may sign with any one it lists,
// and the first listed need not be it. One not valid yet is a rotation
// staged ahead of the switch, added as an upload of it would be
// (verificationCert). When every one has expired, the first one's problem
// is the answer. One that does not parse is passed over; when none does,
// the first is returned for addVerificationCerts to refuse, as an uploaded
// one is.
func (s *Service) signingCerts(idp *idpSSODescriptor) ([]string, error) {
	var texts []string
	for _, kd := range idp.KeyDescriptors {
		if certs := kd.KeyInfo.X509Data.Certificates; (kd.Use == "" || kd.Use == "signing") && len(certs) > 0 {
			if len(strings.TrimSpace(certs[0])) > MaxPEMBytes {
				return nil, tooLongInMetadata("signing KeyDescriptor's X509Certificate", MaxPEMBytes)
			}
			texts = append(texts, certs[0])
		}
	}
	now, expired, weak, parsed := s.d.Clock.Now(), "", "", false
	var certs, seen []string
	for _, text := range texts {
		cert, pemText, err := parseCertificate(text)
		if err != nil {
			continue
		}
		parsed = true
		if now.After(cert.NotAfter) {
			if expired == "" {
				expired = certProblem(cert, now)
			}
			continue
		}
		// A key no signature can be verified with (keyProblem) is passed
		// over while the metadata lists a usable one; alone, it is
		// refused as its upload would be.
		if keyProblem(cert) != "" {
			if weak == "" {
				weak = text
			}
			continue
		}
		if !slices.Contains(seen, pemText) {
			seen = append(seen, pemText)
			certs = append(certs, text)
		}
	}
	switch {
	case len(certs) > 0:
		return certs, nil
	case weak != "":
		return []string{weak}, nil
	case expired != "":
		return nil, apierr.New(apierr.InvalidXMLFromSAMLMetadataURL).WithMessage("The signing certificate in the metadata " +
			expired + ", and the metadata lists no other one that has not: the identity provider must publish its current certificate.")
	case !parsed && len(texts) > 0:
		return texts[:1], nil
	}
	return nil, nil
}

// DeleteCertificate handles DELETE of a verification certificate.
func (h Handlers) DeleteCertificate(r *http.Request) (any, error) {
	id := r.PathValue("certificate_id")
	_, err := h.change(r, KindSAML, func(ctx context.Context, c *conn) error { return h.s.deleteCertificate(c, id) })
	if err != nil {
		return nil, err
	}
	return &DeleteCertificateResponse{CertificateID: id}, nil
}

// deleteCertificate removes the verification certificate id from c, which
// an administrator's change (changeTx) has read under the connection's
// lock: two deletions of an active connection's last two certificates at
// once are serialised there, so the second counts what the first left and
// is refused.
func (s *Service) deleteCertificate(c *conn, id string) error {
	now := s.d.Clock.Now()
	i := slices.IndexFunc(c.SAML.VerificationCertificates, func(v storedCert) bool { return v.ID == id })
	if i < 0 {
		// The type the API family names: the Admin Portal reads it as
		// "already deleted" when an admin saves a stale edit form.
		return apierr.New(apierr.SSOVerificationKeyNotFound)
	}
	gone := c.SAML.VerificationCertificates[i]
	c.SAML.VerificationCertificates = slices.Delete(c.SAML.VerificationCertificates, i, i+1)
	if c.Status != StatusActive {
		// A pending connection has no logins to break.
		return nil
	}
	// An active connection keeps one certificate, or every login through
	// it would stop at once: a rotation uploads the new certificate before
	// deleting the old. Nor may it lose its last one that verifies
	// signatures (verifiesSoon): with only expired or far-off staged ones
	// left it would stay active and fail every login. Deleting one that
	// verifies nothing itself breaks no login, so it is allowed.
	if len(c.SAML.VerificationCertificates) == 0 ||
		verifiesSoon(gone, now) && !slices.ContainsFunc(c.SAML.VerificationCertificates, func(v storedCert) bool { return verifiesSoon(v, now) }) {
		return apierr.New(apierr.CannotDeleteLastSSOVerificationKey)
	}
	return nil
}

// verifiesSoon reports whether a stored verification certificate verifies
// signatures at now, or will within clockSkew: the most an identity
// provider's clock may be ahead of ours, so one it already signs with, its
// NotBefore not yet reached here, fails logins for no longer than that.
// One that does not parse verifies nothing.
func verifiesSoon(vc storedCert, now time.Time) bool {
	cert, _, err := parseCertificate(vc.PEM)
	if err != nil {
		return false
	}
	return !now.After(cert.NotAfter) && !now.Add(clockSkew).Before(cert.NotBefore)
}

// DeleteEncryptionKey handles DELETE of an encryption private key.
func (h Handlers) DeleteEncryptionKey(r *http.Request) (any, error) {
	id := r.PathValue("private_key_id")
	_, err := h.change(r, KindSAML, func(ctx context.Context, c *conn) error {
		before := len(c.SAML.EncryptionKeys)
		c.SAML.EncryptionKeys = slices.DeleteFunc(c.SAML.EncryptionKeys, func(k storedKey) bool { return k.ID == id })
		if len(c.SAML.EncryptionKeys) == before {
			return apierr.New(apierr.SSOEncryptionKeyNotFound)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &DeleteKeyResponse{PrivateKeyID: id}, nil
}

// checkFetchURL is the rule for a URL this server fetches: https, or http
// to loopback when loopback is allowlisted (outbound.Guard.CheckURL). The
// address itself is checked when the fetch connects.
func (s *Service) checkFetchURL(field, v string) error {
	if err := s.d.Fetch.CheckURL(v); err != nil {
		return apierr.Invalid(field, field+" "+err.Error()+".")
	}
	return nil
}

// checkProvisionedURL is the rule for the URLs of connections the
// operator provisions (EnsureOIDC, the dev seed): any http(s) URL, since
// the operator chose it; the fetch is still guarded when it happens.
func checkProvisionedURL(field, v string) error {
	if !isHTTPURL(v) {
		return apierr.Invalid(field, field+" must be an http or https URL.")
	}
	return nil
}

func isHTTPURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
