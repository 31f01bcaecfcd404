package sso

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	saml2 "github.com/russellhaering/gosaml2"
	"github.com/russellhaering/gosaml2/types"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/store"
)

// clockSkew is how far the identity provider's clock may be from ours when
// an assertion's validity windows (Conditions and SubjectConfirmationData)
// are checked, in either direction.
const clockSkew = 90 * time.Second

// serviceProvider configures gosaml2 for one connection at time now, with
// gosaml2's clock set lag behind it. gosaml2 checks
// SubjectConfirmationData/@NotOnOrAfter itself, with no tolerance and
// before anything else can: verifySAML passes clockSkew as lag so that
// check allows the skew, and then applies every time window exactly
// itself. The verification certificates' validity periods are moved back
// by the same lag, so goxmldsig's certificate check under the lagging
// clock is exactly the check at now: a certificate is not accepted past
// its NotAfter because of the lag, nor refused before its NotBefore.
func (s *Service) serviceProvider(c *conn, base string, now time.Time, lag time.Duration) (*saml2.SAMLServiceProvider, error) {
	cfg := c.SAML
	roots := make([]*x509.Certificate, 0, len(cfg.VerificationCertificates))
	for _, vc := range cfg.VerificationCertificates {
		cert, _, err := parseCertificate(vc.PEM)
		if err != nil {
			return nil, fmt.Errorf("sso: verification certificate %s: %w", vc.ID, err)
		}
		// goxmldsig matches a signature's certificate to a root by its raw
		// bytes and verifies with its public key, neither of which changes.
		shifted := *cert
		shifted.NotBefore, shifted.NotAfter = cert.NotBefore.Add(-lag), cert.NotAfter.Add(-lag)
		roots = append(roots, &shifted)
	}
	sp := &saml2.SAMLServiceProvider{
		IdentityProviderSSOURL:      cfg.IdPSSOURL,
		IdentityProviderSSOBinding:  bindingRedirect,
		IdentityProviderIssuer:      cfg.IdPEntityID,
		AssertionConsumerServiceURL: acsURL(base, c.ID),
		ServiceProviderIssuer:       metadataURL(base, c.ID),
		AudienceURI:                 metadataURL(base, c.ID),
		IDPCertificateStore:         &dsig.MemoryX509CertificateStore{Roots: roots},
		NameIdFormat:                cfg.NameIDFormat,
		Clock:                       dsig.NewFakeClockAt(now.Add(-lag)),
	}
	if n := len(cfg.SigningKeys); n > 0 {
		key, cert, err := s.openKey(cfg.SigningKeys[n-1])
		if err != nil {
			return nil, err
		}
		sp.SPSigningKeyStore = dsig.TLSCertKeyStore(tls.Certificate{Certificate: [][]byte{cert}, PrivateKey: key})
	}
	// The decryption key is chosen per response, by validateResponse.
	return sp, nil
}

// validateResponse runs gosaml2's validation of an encoded response,
// decrypting encrypted assertions with the connection's encryption keys
// in turn, newest first. Every stored key decrypts until it is deleted, so
// a rotation can be staged: once a new key is added (and published first
// in the metadata), identity providers still encrypting to the previous
// certificate, and logins already under way, keep working until the old
// key is deleted. Only a failure to decrypt moves on to the next key; any
// other failure is the response's whichever key is used.
func (s *Service) validateResponse(sp *saml2.SAMLServiceProvider, keys []storedKey, encoded string) (*types.Response, error) {
	if len(keys) == 0 {
		return sp.ValidateEncodedResponse(encoded)
	}
	var first error
	for i := len(keys) - 1; i >= 0; i-- {
		key, cert, err := s.openKey(keys[i])
		if err != nil {
			return nil, err
		}
		sp.SPKeyStore = dsig.TLSCertKeyStore(tls.Certificate{Certificate: [][]byte{cert}, PrivateKey: key})
		resp, err := sp.ValidateEncodedResponse(encoded)
		if err == nil {
			return resp, nil
		}
		if first == nil {
			first = err
		}
		if !decryptFailed(err) {
			break
		}
	}
	return nil, first
}

// decryptFailed reports whether gosaml2 failed to decrypt an assertion
// (no key, a key that does not open it, or plaintext that is not XML, as a
// wrong key's output can be). gosaml2 has no error types for these, only
// messages, all of which mention decrypting.
func decryptFailed(err error) bool { return strings.Contains(err.Error(), "decrypt") }

// samlResult is what a verified SAML response says.
type samlResult struct {
	nameID       string
	nameIDFormat string
	inResponseTo string
	assertionID  string
	expires      time.Time
	attributes   map[string][]string
}

// verifySAML checks a base64 SAML response for connection c: the signature
// (on the response or the assertion) by a verification certificate, with
// SHA-2 algorithms only (saml_algs.go), issuer,
// destination, recipient, status, exactly one assertion, its audience and
// validity windows. gosaml2 reports some of these only as warnings; here
// every warning is a failure, and both time windows get clockSkew.
func (s *Service) verifySAML(c *conn, base, encoded string) (*samlResult, error) {
	now := s.d.Clock.Now()
	sp, err := s.serviceProvider(c, base, now, clockSkew)
	if err != nil {
		return nil, err
	}
	if err := s.checkAlgorithms(encoded, c.SAML.EncryptionKeys); err != nil {
		return nil, err
	}
	resp, err := s.validateResponse(sp, c.SAML.EncryptionKeys, encoded)
	if alt := c.SAML.AlternativeACSURL; wrongACS(err) && alt != "" {
		// Addressed to the alternative ACS URL (its Destination or
		// Recipient, which gosaml2 compares with one URL): gosaml2 checks
		// the response again, every check the same, against that URL.
		sp.AssertionConsumerServiceURL = alt
		resp, err = s.validateResponse(sp, c.SAML.EncryptionKeys, encoded)
	}
	if err != nil {
		return nil, lapsedCertificate(c, now, err)
	}
	if err := signedDestination(resp); err != nil {
		return nil, err
	}
	if len(resp.Assertions) != 1 {
		// One login, one assertion: anything else is how wrapping attacks
		// smuggle a second, unsigned story past the signed one.
		return nil, errAssertionCount()
	}
	a := &resp.Assertions[0]
	warn, err := sp.VerifyAssertionConditions(a)
	if alt := c.SAML.AlternativeAudienceURI; err == nil && warn.NotInAudience && alt != "" {
		// alternative_audience_uri is accepted as well as audience_uri,
		// compared as exactly (every AudienceRestriction must name it).
		sp.AudienceURI = alt
		warn, err = sp.VerifyAssertionConditions(a)
	}
	if err != nil {
		return nil, samlError(err)
	}
	if warn.NotInAudience || len(a.Conditions.AudienceRestrictions) == 0 {
		return nil, apierr.New(apierr.InvalidAudienceSAMLResponse)
	}
	if warn.ProxyRestriction != nil {
		return nil, apierr.New(apierr.InvalidSAMLResponse).WithMessage("SAML proxy restrictions are not supported.")
	}
	// OneTimeUse is what the replay cache enforces for every assertion,
	// so it needs no further action.
	if a.Subject == nil || a.Subject.NameID == nil || strings.TrimSpace(a.Subject.NameID.Value) == "" {
		return nil, apierr.New(apierr.InvalidSAMLResponse).WithMessage("The SAML assertion names no subject.")
	}
	if a.ID == "" {
		return nil, apierr.New(apierr.InvalidSAMLResponse).WithMessage("The SAML assertion has no ID.")
	}
	// gosaml2's clock lags ours by clockSkew (serviceProvider), so its
	// InvalidTime warning is not the check: both windows are checked here,
	// against our clock. gosaml2 has already required and parsed these
	// times (VerifyAssertionConditions for Conditions, Validate for the
	// subject's confirmation, which it requires too).
	notBefore, _ := time.Parse(time.RFC3339, a.Conditions.NotBefore)
	notAfter, _ := time.Parse(time.RFC3339, a.Conditions.NotOnOrAfter)
	scd := a.Subject.SubjectConfirmation.SubjectConfirmationData
	scdNotAfter, _ := time.Parse(time.RFC3339, scd.NotOnOrAfter)
	if now.Add(clockSkew).Before(notBefore) {
		return nil, apierr.New(apierr.NotYetValidSAMLResponse)
	}
	if !withinSkew(now, notBefore, notAfter) || !withinSkew(now, time.Time{}, scdNotAfter) {
		return nil, apierr.New(apierr.ExpiredSAMLResponse)
	}
	out := &samlResult{nameID: strings.TrimSpace(a.Subject.NameID.Value), nameIDFormat: strings.TrimSpace(a.Subject.NameID.Format),
		assertionID: a.ID, expires: notAfter.Add(clockSkew), attributes: map[string][]string{}}
	out.inResponseTo = scd.InResponseTo
	if resp.InResponseTo != "" && resp.InResponseTo != scd.InResponseTo {
		// The response contradicts itself; whether it answers a login
		// started here is the callback's check (unsolicited_saml_response).
		return nil, apierr.New(apierr.InvalidSAMLResponse).WithMessage(
			"The SAML response and its assertion answer different requests (InResponseTo).")
	}
	// The replay cache keeps the id at least until both windows are
	// closed, skew included.
	if scdNotAfter.Add(clockSkew).After(out.expires) {
		out.expires = scdNotAfter.Add(clockSkew)
	}
	if a.AttributeStatement != nil {
		for _, attr := range a.AttributeStatement.Attributes {
			out.attributes[attr.Name] = attributeValues(attr)
			if attr.FriendlyName != "" {
				out.attributes[attr.FriendlyName] = attributeValues(attr)
			}
		}
	}
	return out, nil
}

// withinSkew reports whether now lies in the window [notBefore,
// notOnOrAfter) widened by clockSkew at both ends; a zero notBefore sets no
// lower bound. NotOnOrAfter is exclusive (SAML core 2.5.1.2), so an
// assertion is refused from the instant now-clockSkew reaches it.
func withinSkew(now, notBefore, notOnOrAfter time.Time) bool {
	return !now.Add(clockSkew).Before(notBefore) && now.Add(-clockSkew).Before(notOnOrAfter)
}

func attributeValues(a types.Attribute) []string {
	vs := make([]string, 0, len(a.Values))
	for _, v := range a.Values {
		if v.NameID != nil {
			vs = append(vs, strings.TrimSpace(v.NameID.Value))
		} else {
			vs = append(vs, strings.TrimSpace(v.Value))
		}
	}
	return vs
}

// samlError maps gosaml2's errors onto the catalogue.
func samlError(err error) error {
	var invalid saml2.ErrInvalidValue
	var missing saml2.ErrMissingElement
	var parsing saml2.ErrParsing
	switch {
	case errors.As(err, &invalid) && invalid.Reason == saml2.ReasonExpired:
		return apierr.Wrap(apierr.ExpiredSAMLResponse, err)
	case errors.As(err, &invalid), errors.As(err, &missing), errors.As(err, &parsing), decryptFailed(err):
		return apierr.Wrap(apierr.InvalidSAMLResponse, err)
	case unreadable(err):
		return apierr.Wrap(apierr.InvalidXMLSAMLResponse, err)
	case errors.Is(err, dsig.ErrMissingSignature):
		return apierr.Wrap(apierr.MissingSignatureSAMLResponse, err)
	}
	return apierr.Wrap(apierr.InvalidSignatureSAMLResponse, err)
}

// signedDestination refuses a signed Response without a Destination
// (SAML bindings 3.5.5.2: a signed HTTP-POST message MUST name the URL it
// was sent to), as one with the wrong Destination is refused. gosaml2
// compares Destination only when there is one, so without this a signed
// Response said nowhere where it was meant to go. An unsigned Response
// (its assertions signed) may leave it out: the signed
// SubjectConfirmationData's Recipient, which gosaml2 requires, says where.
func signedDestination(resp *types.Response) error {
	if !resp.SignatureValidated || strings.TrimSpace(resp.Destination) != "" {
		return nil
	}
	return apierr.Wrap(apierr.InvalidSAMLResponse, saml2.ErrMissingElement{Tag: "Response", Attribute: saml2.DestinationAttr}).
		WithMessage("The SAML response is signed but names no Destination.")
}

// wrongACS reports whether gosaml2 refused a response for its Destination
// or its SubjectConfirmationData's Recipient, which it compares with the
// service provider's ACS URL.
func wrongACS(err error) bool {
	var invalid saml2.ErrInvalidValue
	return errors.As(err, &invalid) && (invalid.Key == saml2.DestinationAttr || invalid.Key == saml2.RecipientAttr)
}

// lapsedCertificate is samlError, except for a signature goxmldsig
// refused because its certificate, one of the connection's, is outside its
// validity period (goxmldsig says only "Cert is not valid at this time"):
// that answer names the connection's certificates that are not valid now,
// the signing one among them, so an administrator sees an expired
// certificate rather than a bad signature. The catalogue has no type for
// it (expired_saml_response is the assertion's own window), so the type
// stays invalid_signature_saml_response.
func lapsedCertificate(c *conn, now time.Time, err error) error {
	if !strings.Contains(err.Error(), "Cert is not valid at this time") {
		return samlError(err)
	}
	var lapsed []string
	for _, vc := range c.SAML.VerificationCertificates {
		if cert, _, perr := parseCertificate(vc.PEM); perr == nil {
			if p := certProblem(cert, now); p != "" {
				lapsed = append(lapsed, vc.ID+" "+p)
			}
		}
	}
	if len(lapsed) == 0 {
		return samlError(err)
	}
	return apierr.Wrap(apierr.InvalidSignatureSAMLResponse, err).WithMessage("The SAML response is signed with a verification " +
		"certificate that is not valid now (" + strings.Join(lapsed, "; ") + "): upload the identity provider's current certificate.")
}

// unreadable reports whether gosaml2 failed before any check could run:
// the response is not base64, or neither XML nor deflated XML (gosaml2
// then reports the inflate failure, not the XML one). As with
// decryptFailed, only the messages say so.
func unreadable(err error) bool {
	var b64 base64.CorruptInputError
	if errors.As(err, &b64) {
		return true
	}
	for _, m := range []string{"base64", "unable to unmarshal", "XML", "flate:", "unable to parse response"} {
		if strings.Contains(err.Error(), m) {
			return true
		}
	}
	return false
}

// assertionKeep is how long past the end of its acceptance window an
// assertion id is kept. The window is judged on one clock reading
// (verifySAML), the sweep on a later one, perhaps on another replica whose
// clock runs ahead: swept at its very end, an id accepted a moment before
// could be accepted again. Five minutes outlasts any such gap, as
// trusted auth's spent keys do.
const assertionKeep = 5 * time.Minute

// rememberAssertion records an assertion id for connection c, failing if
// it was seen before. The insert is its own statement, not part of the
// login's transaction: an assertion is spent once presented, whatever
// happens next. Entries long expired (assertionKeep) are swept on the way.
func (s *Service) rememberAssertion(ctx context.Context, connID string, r *samlResult) error {
	before := store.Millis(s.d.Clock.Now().Add(-assertionKeep))
	if _, err := s.d.DB.ExecContext(ctx, `DELETE FROM sso_saml_assertions WHERE expires_at < $1`, before); err != nil {
		return fmt.Errorf("sso: sweep assertions: %w", err)
	}
	_, err := s.d.DB.ExecContext(ctx, `INSERT INTO sso_saml_assertions (connection_id, assertion_id, expires_at)
		VALUES ($1, $2, $3)`, connID, r.assertionID, store.Millis(r.expires))
	if errors.Is(store.MapError(err), store.ErrConflict) {
		return apierr.Wrap(apierr.DuplicateSAMLResponse, err)
	}
	if err != nil {
		return fmt.Errorf("sso: remember assertion: %w", err)
	}
	return nil
}

// nameIDTransient is SAML core 8.3.8's transient NameID format: a one-time
// value, which the identity provider may later give someone else.
const nameIDTransient = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"

// samlIdentity reads the member's identity from a verified response: the
// email from the attribute attribute_mapping.email names, else the NameID
// when it is an email address; a name from first_name/last_name or name.
func samlIdentity(c *conn, r *samlResult) identity {
	id := identity{ExternalID: r.nameID, Kind: KindSAML, Attributes: map[string]any{},
		Transient: r.nameIDFormat == nameIDTransient}
	for k, v := range r.attributes {
		if len(v) == 1 {
			id.Attributes[k] = v[0]
		} else {
			id.Attributes[k] = v
		}
	}
	get := func(key string) string {
		name, _ := c.SAML.AttributeMapping[key].(string)
		if name == "" {
			return ""
		}
		if vs := r.attributes[name]; len(vs) > 0 {
			return vs[0]
		}
		return ""
	}
	if e, err := emailaddr.Normalize(get("email")); err == nil {
		id.Email = e
	} else if e, err := emailaddr.Normalize(r.nameID); err == nil {
		id.Email = e
	}
	id.Name = strings.TrimSpace(get("first_name") + " " + get("last_name"))
	if id.Name == "" {
		id.Name = get("name")
	}
	for _, g := range []string{"groups"} {
		if name, _ := c.SAML.AttributeMapping[g].(string); name != "" {
			id.Groups = r.attributes[name]
		}
	}
	return id
}
