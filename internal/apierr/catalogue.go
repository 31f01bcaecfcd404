package apierr

import "net/http"

// Type is an error_type on the wire. The widget's strings table maps the
// same values to display text, so renaming one is a wire-format change.
type Type string

// The catalogue's error types. The first group is the spec's section 8
// table; the rest are the API family's own types for conditions the spec
// leaves to the server.
const (
	InvalidEmail                   Type = "invalid_email"
	InvalidPhoneNumber             Type = "invalid_phone_number"
	UnsubscribedPhoneNumber        Type = "unsubscribed_phone_number"
	InactiveEmail                  Type = "inactive_email"
	UnauthorizedCredentials        Type = "unauthorized_credentials"
	UserUnauthenticated            Type = "user_unauthenticated"
	EmailNotFound                  Type = "email_not_found"
	UnableToAuthMagicLink          Type = "unable_to_auth_magic_link"
	NoUserPassword                 Type = "no_user_password"
	BreachedPassword               Type = "breached_password"
	ResetPassword                  Type = "reset_password"
	OAuthTokenNotFound             Type = "oauth_token_not_found"
	InvalidCode                    Type = "invalid_code"
	MemberPasswordNotFound         Type = "member_password_not_found"
	OAuthFlowCallbackError         Type = "oauth_flow_callback_error"
	UnauthorizedAction             Type = "unauthorized_action"
	UserLockLimitReached           Type = "user_lock_limit_reached"
	InvalidSessionToken            Type = "invalid_session_token"
	SessionNotFound                Type = "session_not_found"
	InvalidPhoneNumberCountryCode  Type = "invalid_phone_number_country_code"
	OTPCodeNotFound                Type = "otp_code_not_found"
	DuplicateMemberPhoneNumber     Type = "duplicate_member_phone_number"
	EmailJITProvisioningNotAllowed Type = "email_jit_provisioning_not_allowed"
	InvalidEmailForJITProvisioning Type = "invalid_email_for_jit_provisioning"
	EmailDomainIsClaimed           Type = "action_not_allowed_email_domain_is_claimed"

	InvalidRequest              Type = "invalid_request"
	RouteNotFound               Type = "route_not_found"
	MethodNotAllowed            Type = "method_not_allowed"
	RequestTooLarge             Type = "request_too_large"
	TooManyRequests             Type = "too_many_requests"
	InvalidSecretAuthentication Type = "invalid_secret_authentication"
	PublicTokenNotFound         Type = "public_token_not_found"
	PublicTokenRequired         Type = "public_token_required"
	BadDomainForSDK             Type = "bad_domain_for_stytch_sdk"
	EndpointNotAuthorizedForSDK Type = "endpoint_not_authorized_for_sdk"
	ProjectNotFound             Type = "project_not_found"
	OrganizationNotFound        Type = "organization_not_found"
	OrganizationSlugUsed        Type = "organization_slug_already_used"
	InvalidOrganizationSlug     Type = "invalid_organization_slug"
	// The API family's types for an email domain an organization setting
	// refuses: not a domain at all, or a shared mail provider's (gmail.com),
	// in email_allowed_domains or in an RBAC email implicit role assignment.
	InvalidAllowedDomain     Type = "organization_settings_invalid_domain"
	AllowedDomainTooCommon   Type = "organization_settings_domain_too_common"
	InvalidRBACDomain        Type = "rbac_invalid_domain"
	RBACDomainTooCommon      Type = "rbac_domain_too_common"
	MemberNotFound           Type = "member_not_found"
	DuplicateMemberEmail     Type = "duplicate_member_email"
	InactiveMember           Type = "inactive_member"
	MemberHasNoVerifiedEmail Type = "member_has_no_active_verified_email"
	// A project with no redirect URL of the type a flow needs, one type
	// per redirect type as the API family names them (project.NoRedirectURLs).
	NoLoginRedirectURLsSet     Type = "no_login_redirect_urls_set"
	NoSignupRedirectURLsSet    Type = "no_signup_redirect_urls_set"
	NoDiscoveryRedirectURLsSet Type = "no_discovery_redirect_urls_set"
	NoPasswordResetRedirectURL Type = "no_password_reset_redirect_url"
	// A redirect URL that matches no registered URL of its type, named per
	// flow: email links (magic links, invites, discovery, resets, email
	// updates, impersonation), OAuth and SSO.
	NoMatchForMagicLinkURL Type = "no_match_for_provided_magic_link_url"
	NoMatchForOAuthURL     Type = "no_match_for_provided_oauth_url"
	NoMatchForSSOURL       Type = "no_match_for_provided_sso_url"
	PKCEMismatch           Type = "pkce_mismatch"
	PKCEExpectedVerifier   Type = "pkce_expected_code_verifier"
	// A browser flow's start without a code challenge the project
	// requires, or with one that is not S256-shaped; a public connected
	// app's authorization without one.
	InvalidPKCECodeChallenge            Type = "invalid_pkce_code_challenge"
	PKCERequiredForIDPAuthorizationFlow Type = "pkce_required_for_idp_authorization_flow"
	InvalidSessionDuration              Type = "invalid_session_duration"
	UnableToParseSessionJWT             Type = "unable_to_parse_session_jwt"
	TooManySessionArguments             Type = "too_many_session_arguments"
	TooManyRevokeArguments              Type = "too_many_session_revoke_arguments"
	IntermediateSessionNotFound         Type = "intermediate_session_not_found"
	EmailDeliveryFailed                 Type = "email_delivery_failed"
	CreateOrganizationDisabled          Type = "create_organization_disabled"
	InternalServerError                 Type = "internal_server_error"
	// A write under a row that a concurrent request deleted (the store's
	// ErrParentGone) that its domain left untranslated: the edge's answer
	// (httpapi.PublicError) in place of a 500.
	ResourceNotFound Type = "resource_not_found"

	// A session's custom claims (session_custom_claims; session.MergeClaims).
	CustomClaimsTooLarge       Type = "custom_claims_too_large"
	StytchClaimsInCustomClaims Type = "stytch_claims_in_custom_claims"
	UnrepresentableClaims      Type = "unable_to_represent_custom_claims_json"

	// Organizations, members and invites (issue 3).
	EmailInvitesNotAllowed              Type = "email_invites_not_allowed"
	InvalidEmailForInvites              Type = "invalid_email_for_invites"
	NoInviteRedirectURLsSet             Type = "no_invite_redirect_urls_set"
	OrganizationExternalIDUsed          Type = "organization_external_id_already_used"
	NoDeletedMemberFoundForReactivation Type = "no_deleted_member_found_for_reactivation"
	EmailUnverifiedForReactivation      Type = "email_unverified_for_reactivation"
	DuplicateMemberExternalID           Type = "duplicate_member_external_id"
	InvalidMFADefaultMethod             Type = "invalid_mfa_default_method"
	DefaultMFAMemberMissingFactor       Type = "default_mfa_member_missing_factor"
	CannotPreserveExistingSessions      Type = "cannot_preserve_existing_sessions"
	// An organization create without a name (absent, null or blank); a
	// name that is empty, too long or holds control characters; a default
	// SSO connection that is not one of the organization's active
	// connections.
	OrganizationNameMissing     Type = "organization_name_missing"
	InvalidOrganizationName     Type = "invalid_organization_name"
	InvalidSSODefaultConnection Type = "invalid_sso_default_connection_id"
	// A metadata object (trusted_metadata, untrusted_metadata) over the
	// API family's limits once an update is merged in.
	MetadataTooManyKeys Type = "metadata_too_many_keys"
	MetadataTooLarge    Type = "metadata_too_large"

	// Organization and member searches: a fuzzy filter value shorter than
	// three characters, one type per filter as the API family names them.
	MemberSearchEmailFuzzyTooShort      Type = "member_search_member_email_fuzzy_too_short"
	MemberSearchMFAPhoneFuzzyTooShort   Type = "member_search_member_mfa_phone_number_fuzzy_too_short"
	OrgSearchNameFuzzyTooShort          Type = "organization_search_organization_name_fuzzy_too_short"
	OrgSearchSlugFuzzyTooShort          Type = "organization_search_organization_slug_fuzzy_too_short"
	OrgSearchMemberEmailFuzzyTooShort   Type = "organization_search_member_email_fuzzy_too_short"
	OrgSearchAllowedDomainFuzzyTooShort Type = "organization_search_allowed_domain_fuzzy_too_short"

	// claimed_email_domains, a setting only the backend writes: not a
	// domain, a shared mail provider's, or already claimed by another
	// organization of the project (a domain has one claimant); and the
	// organization search filter of that name without a list of domains.
	InvalidClaimedDomain           Type = "organization_settings_invalid_claimed_domain"
	ClaimedDomainTooCommon         Type = "organization_settings_claimed_domain_too_common"
	DuplicateClaimedDomain         Type = "organization_settings_duplicate_claimed_domain"
	OrgSearchMissingClaimedDomains Type = "organization_search_missing_claimed_email_domains"

	// Multi-factor authentication.
	MFAMethodRestricted Type = "operation_restricted_by_organization_mfa_methods"
	// MFA on a member that is not active (invited, pending, deleted).
	ActionOnlyForActiveMembers Type = "action_available_only_for_active_members"
	// A self-serve email update of a member that is not active.
	EmailUpdatesOnlyForActiveMembers Type = "email_updates_available_only_for_active_members"
	TOTPNotFound                     Type = "totp_not_found"
	// A recovery code that matches none of the member's unused codes; a
	// member without TOTP (so without recovery codes); recovery codes that
	// can no longer be shown (one was used since they were issued).
	UnableToAuthRecoveryCode         Type = "unable_to_authenticate_recovery_code"
	NoActiveRecoveryCodeBackedFactor Type = "no_active_recovery_code_backed_factor"
	RecoveryCodesNotFound            Type = "recovery_codes_not_found"
	SMSDeliveryFailed                Type = "sms_delivery_failed"

	// Roles and permissions (issue 10).
	TenancyMismatch         Type = "tenancy_mismatch"
	CannotAssignDefaultRole Type = "cannot_assign_default_rbac_role_id"
	// A refused authorization_check of sessions/authenticate: the SDKs'
	// own types for it (unauthorized_action and tenancy_mismatch stay
	// the types of every other route's refusal).
	SessionAuthorizationError        Type = "session_authorization_error"
	SessionAuthorizationTenancyError Type = "session_authorization_tenancy_error"

	// Passwords (issue 4).
	WeakPassword                 Type = "weak_password"
	SessionTooOldToResetPassword Type = "session_too_old_to_reset_password"
	ResetToExistingPassword      Type = "cannot_reset_password_with_existing_password"

	// OAuth (issue 8).
	OAuthConfigNotFound   Type = "oauth_config_not_found"
	OAuthProviderNotFound Type = "oauth_provider_not_supported"
	OAuthUnverifiedEmail  Type = "oauth_unverified_email"
	// The OAuth callback came from another browser than the one that
	// started the flow (its state binding cookie is missing or another's).
	OAuthStateMismatch Type = "oauth_state_mismatch"
	// A Google One Tap ID token refused: expired, for another client, with
	// a nonce (issued for another sign-in), or otherwise invalid or spent.
	IDTokenExpired           Type = "id_token_expired"
	IDTokenIncorrectAudience Type = "id_token_incorrect_audience"
	IDTokenNonceInvalid      Type = "id_token_nonce_invalid"
	IDTokenInvalid           Type = "id_token_invalid"
	OAuthTenantJITForbidden  Type = "oauth_tenant_jit_provisioning_not_allowed"

	// Hardening (issue 9).
	SessionTooOld        Type = "session_too_old"
	UnsupportedParameter Type = "unsupported_parameter"
	// Identity provider: connected apps, M2M clients, authorization (issue 11).
	ConnectedAppNotFound    Type = "connected_app_not_found"
	InvalidRedirectURI      Type = "invalid_redirect_uri"
	InvalidScope            Type = "invalid_scope"
	UnsupportedResponseType Type = "unsupported_response_type"
	LoginRequired           Type = "login_required"
	M2MClientNotFound       Type = "m2m_client_not_found"
	// Client secret rotation steps out of order, one pair per client kind.
	ConnectedAppAlreadyRotatingSecret Type = "connected_app_already_rotating_secret"
	ConnectedAppNotRotatingSecret     Type = "connected_app_not_rotating_secret"
	M2MClientAlreadyRotatingSecret    Type = "m2m_client_already_rotating_secret"
	M2MClientNotRotatingSecret        Type = "m2m_client_not_rotating_secret"
	// M2M client fields and searches, as the API family names them.
	DuplicateM2MClientID         Type = "duplicate_m2m_client_id"
	InvalidM2MClientStatus       Type = "invalid_m2m_client_status"
	InvalidM2MClientScope        Type = "invalid_m2m_client_scope"
	InsecureM2MClientSecret      Type = "insecure_m2m_client_secret"
	M2MClientInvalidClientSecret Type = "m2m_client_invalid_client_secret"
	M2MSearchExpectedStrings     Type = "m2m_search_expected_array_of_strings"
	M2MSearchFilterNameNotString Type = "m2m_search_filter_name_must_be_string"
	M2MSearchFilterNameUnknown   Type = "m2m_search_filter_name_not_recognized"
	M2MSearchMissingFilterName   Type = "m2m_search_missing_filter_name"
	M2MSearchMissingFilterValue  Type = "m2m_search_missing_filter_value"

	// SSO (issue 8). Each way an SSO login can fail has its own type, so a
	// refused login says why.
	SSOConnectionNotFound       Type = "sso_connection_not_found"
	SSOConnectionNotActive      Type = "sso_connection_not_active"
	ExternalConnectionNotActive Type = "external_connection_not_active"
	SSOTokenNotFound            Type = "sso_token_not_found"
	// The login's state (RelayState, OIDC state) is absent, or names no
	// login started here for this connection (unknown, expired, spent).
	MissingSAMLRelayState   Type = "missing_saml_relay_state"
	MissingOIDCStateParam   Type = "missing_oidc_state_param"
	UnsolicitedSAMLResponse Type = "unsolicited_saml_response"
	UnsolicitedOIDCResponse Type = "unsolicited_oidc_response"
	// A SAML response that fails verification, one type per check.
	MissingSAMLResponse          Type = "missing_saml_response"
	InvalidXMLSAMLResponse       Type = "invalid_xml_saml_response"
	InvalidSAMLResponse          Type = "invalid_saml_response"
	MissingSignatureSAMLResponse Type = "missing_signature_saml_response"
	InvalidSignatureSAMLResponse Type = "invalid_signature_saml_response"
	InvalidAudienceSAMLResponse  Type = "invalid_audience_saml_response"
	ExpiredSAMLResponse          Type = "expired_saml_response"
	NotYetValidSAMLResponse      Type = "not_yet_valid_saml_response"
	DuplicateSAMLResponse        Type = "duplicate_saml_response"
	InvalidSAMLResponseEmail     Type = "invalid_saml_response_email"
	// An OIDC login that fails, one type per step.
	OIDCInvalidCallbackRequest  Type = "oidc_invalid_callback_request"
	OIDCAuthCodeError           Type = "oidc_auth_code_error"
	OIDCInvalidIDToken          Type = "oidc_invalid_id_token"
	OIDCInvalidUserinfo         Type = "oidc_invalid_userinfo"
	OIDCResponseSubjectMismatch Type = "oidc_response_subject_mismatch"
	OIDCResponseUnverifiedEmail Type = "oidc_response_unverified_email"
	OIDCResponseEmailMissing    Type = "oidc_response_email_missing"
	// The identity provider refused the login (an OIDC error callback) or
	// could not be reached: no vendor type names this.
	SSOIdentityProviderError            Type = "sso_identity_provider_error"
	InvalidConnectionForJITProvisioning Type = "invalid_connection_for_jit_provisioning"
	// A SAML connection's metadata_url: unreachable (or not 200), or not
	// IdP metadata this server can use.
	InvalidSAMLMetadataURL        Type = "invalid_saml_metadata_url"
	InvalidXMLFromSAMLMetadataURL Type = "invalid_xml_from_saml_metadata_url"
	SSOVerificationKeyNotFound    Type = "sso_verification_key_not_found"
	SSOEncryptionKeyNotFound      Type = "sso_encryption_private_key_not_found"
	// A SAML connection's verification certificates: at most five, and an
	// active connection never without one (the API family's two rules).
	CannotDeleteLastSSOVerificationKey Type = "cannot_delete_last_sso_verification_key"
	TooManySSOVerificationCertificates Type = "too_many_sso_verification_certificates"
	// At most five encryption private keys per SAML connection.
	TooManyEncryptionCertificates Type = "too_many_encryption_certificates"
	EncryptionKeyNotConfigured    Type = "encryption_key_not_configured"

	// An organization's second external connection to the same source.
	DuplicateExternalSSOConnection Type = "duplicate_external_sso_connection"
	ExternalOrganizationIsOwn      Type = "external_organization_id_same_as_organization_id"

	// SCIM connections (the SCIM service itself answers in SCIM's error
	// shape, package scim).
	NoActiveSCIMConnection         Type = "no_active_scim_connection"
	ActiveSCIMConnectionExists     Type = "active_scim_connection_exists"
	SCIMConnectionNotRotatingToken Type = "scim_connection_not_rotating_token"
	// A connection's fields refused, in the vendor's types: an
	// identity_provider not in the list, a display_name too long, and a
	// scim_group_implicit_role_assignments entry without a group_id or a
	// role_id, or naming a group the connection does not have.
	InvalidSCIMIdP                     Type = "invalid_scim_idp"
	InvalidDisplayName                 Type = "invalid_display_name"
	SCIMGroupRoleAssignmentNoGroupID   Type = "scim_group_role_assignment_does_not_contain_group_id"
	SCIMGroupRoleAssignmentNoSuchGroup Type = "scim_group_role_assignment_group_does_not_exist"
	EmptyRBACRoleID                    Type = "empty_rbac_role_id"

	// Trusted auth tokens (issue 11): a token profile and the JWTs it
	// vouches for.
	TrustedTokenProfileNotFound     Type = "trusted_token_profile_not_found"
	TrustedTokenProfileInvalid      Type = "trusted_token_profile_invalid_request"
	InvalidTrustedAuthToken         Type = "invalid_trusted_auth_token"
	TrustedAuthTokenKeysUnavailable Type = "trusted_auth_token_keys_unavailable"
	TokenMissingOrganizationIDClaim Type = "token_missing_organization_id_claim"
	InvalidTokenOrganizationIDClaim Type = "invalid_token_organization_id_claim"

	// Exchanging a connected app's access token for a session, and
	// migrating a session from another provider.
	AccessTokenExchangeInvalidGrant      Type = "oauth_access_token_exchange_token_invalid_grant"
	AccessTokenExchangeMissingFullAccess Type = "oauth_access_token_exchange_missing_full_access"
	AccessTokenExchangeTooOld            Type = "oauth_access_token_exchange_token_too_old"
	MigrateMissingUserinfo               Type = "migrate_from_external_missing_userinfo"
	MigrateEmailDoesNotExist             Type = "migrate_from_external_email_does_not_exist"
	MigrateUnexpectedResponse            Type = "migrate_from_external_unexpected_response"
	MigrateUserinfoUnavailable           Type = "migrate_from_external_userinfo_unavailable"

	// Member impersonation by an operator (package impersonation).
	UnableToAuthImpersonationToken Type = "unable_to_auth_impersonation_token"
)

type entry struct {
	status  int
	message string
}

// catalogue is the single table of public errors: type -> HTTP status and
// the default message. It is read-only after program start.
var catalogue = map[Type]entry{
	InvalidEmail:                   {http.StatusBadRequest, "Email format is invalid."},
	InvalidPhoneNumber:             {http.StatusBadRequest, "Phone number format is invalid. Ensure the phone number is in the E.164 format."},
	UnsubscribedPhoneNumber:        {http.StatusBadRequest, "Phone number is unsubscribed; resubscribe by texting 'START' before messages can be sent."},
	InactiveEmail:                  {http.StatusBadRequest, "The email address is marked as inactive. Please try another email address, or contact your admin if you think this is a mistake."},
	UnauthorizedCredentials:        {http.StatusUnauthorized, "Unauthorized credentials."},
	UserUnauthenticated:            {http.StatusUnauthorized, "Must have an active session to call this method. Have you logged in yet?"},
	EmailNotFound:                  {http.StatusNotFound, "Email not found."},
	UnableToAuthMagicLink:          {http.StatusUnauthorized, "The magic link could not be authenticated because it was either already used or expired. Please try again."},
	NoUserPassword:                 {http.StatusBadRequest, "Password not found for this user. Please try again."},
	BreachedPassword:               {http.StatusBadRequest, "Password appears in the list of breached passwords and must be reset."},
	ResetPassword:                  {http.StatusBadRequest, "Password must be reset."},
	OAuthTokenNotFound:             {http.StatusNotFound, "OAuth Token could not be found."},
	InvalidCode:                    {http.StatusBadRequest, "Code format is invalid, please try again."},
	MemberPasswordNotFound:         {http.StatusNotFound, "Member password not found."},
	OAuthFlowCallbackError:         {http.StatusBadRequest, "An error was encountered in the callback of the OAuth flow. Please try again."},
	UnauthorizedAction:             {http.StatusForbidden, "Unauthorized action."},
	UserLockLimitReached:           {http.StatusTooManyRequests, "Too many failed authentication attempts. Please try again later."},
	InvalidSessionToken:            {http.StatusBadRequest, "Invalid session token."},
	SessionNotFound:                {http.StatusNotFound, "Session not found."},
	InvalidPhoneNumberCountryCode:  {http.StatusBadRequest, "The phone number's country code is invalid, unsupported, or disabled."},
	OTPCodeNotFound:                {http.StatusNotFound, "Invalid passcode, please try again."},
	DuplicateMemberPhoneNumber:     {http.StatusBadRequest, "A member with the specified phone number already exists for this organization."},
	EmailJITProvisioningNotAllowed: {http.StatusForbidden, "This organization does not allow new members to join by email. Ask an admin for an invite."},
	InvalidEmailForJITProvisioning: {http.StatusForbidden, "This email address's domain is not allowed to join this organization."},
	EmailDomainIsClaimed:           {http.StatusForbidden, "This email domain is claimed by another organization, so this action is not allowed."},

	InvalidRequest:                      {http.StatusBadRequest, "The request is invalid."},
	RouteNotFound:                       {http.StatusNotFound, "The requested route does not exist."},
	MethodNotAllowed:                    {http.StatusMethodNotAllowed, "The HTTP method is not allowed on this route."},
	RequestTooLarge:                     {http.StatusRequestEntityTooLarge, "The request body is too large."},
	TooManyRequests:                     {http.StatusTooManyRequests, "Too many requests. Please wait and try again."},
	InvalidSecretAuthentication:         {http.StatusUnauthorized, "The project ID and secret do not match a project."},
	PublicTokenNotFound:                 {http.StatusUnauthorized, "The public token is not valid for any project."},
	PublicTokenRequired:                 {http.StatusBadRequest, "public_token is required."},
	BadDomainForSDK:                     {http.StatusForbidden, "This origin is not an authorized origin of the project."},
	EndpointNotAuthorizedForSDK:         {http.StatusUnauthorized, "This authentication method is not enabled for the project's SDK."},
	ProjectNotFound:                     {http.StatusNotFound, "Project not found."},
	OrganizationNotFound:                {http.StatusNotFound, "Organization not found."},
	OrganizationSlugUsed:                {http.StatusBadRequest, "An organization with this slug already exists in the project."},
	InvalidOrganizationSlug:             {http.StatusBadRequest, "Organization slugs are 2 to 128 characters of lowercase letters, digits, '-', '.', '_' and '~'."},
	InvalidAllowedDomain:                {http.StatusBadRequest, "This is not a valid email domain."},
	AllowedDomainTooCommon:              {http.StatusBadRequest, "Common email domains such as gmail.com cannot be allowed domains of an organization: anyone can have an address there."},
	InvalidRBACDomain:                   {http.StatusBadRequest, "An email implicit role assignment needs a valid email domain."},
	RBACDomainTooCommon:                 {http.StatusBadRequest, "Common email domains such as gmail.com cannot be used for email implicit role assignments: anyone can have an address there."},
	MemberNotFound:                      {http.StatusNotFound, "Member not found."},
	DuplicateMemberEmail:                {http.StatusBadRequest, "A member with the specified email already exists for this organization."},
	InactiveMember:                      {http.StatusForbidden, "This member is not active in the organization."},
	MemberHasNoVerifiedEmail:            {http.StatusBadRequest, "This member's email address is not verified, so it cannot be changed by a self-serve email update; an admin can update it instead."},
	NoLoginRedirectURLsSet:              {http.StatusBadRequest, "No login redirect URL is registered for this project."},
	NoSignupRedirectURLsSet:             {http.StatusBadRequest, "No signup redirect URL is registered for this project."},
	NoDiscoveryRedirectURLsSet:          {http.StatusBadRequest, "No discovery redirect URL is registered for this project."},
	NoPasswordResetRedirectURL:          {http.StatusBadRequest, "No password reset redirect URL is registered for this project."},
	NoMatchForMagicLinkURL:              {http.StatusBadRequest, "The redirect URL does not exactly match a registered redirect URL of this type."},
	NoMatchForOAuthURL:                  {http.StatusBadRequest, "The OAuth redirect URL does not exactly match a registered redirect URL of this type."},
	NoMatchForSSOURL:                    {http.StatusBadRequest, "The SSO redirect URL does not exactly match a registered redirect URL of this type."},
	PKCEMismatch:                        {http.StatusBadRequest, "The PKCE code verifier does not match the code challenge."},
	PKCEExpectedVerifier:                {http.StatusBadRequest, "A PKCE code verifier is required: this flow started with a code challenge."},
	InvalidPKCECodeChallenge:            {http.StatusBadRequest, "This project requires PKCE: send an S256 code challenge (43 base64url characters) with the request."},
	PKCERequiredForIDPAuthorizationFlow: {http.StatusBadRequest, "Public clients must use PKCE: send a code_challenge (S256)."},
	InvalidSessionDuration:              {http.StatusBadRequest, "session_duration_minutes must be between 5 and 527040."},
	UnableToParseSessionJWT:             {http.StatusUnauthorized, "The session JWT is malformed or does not verify (signature, key id, issuer, audience, not-before or issued-at)."},
	TooManySessionArguments:             {http.StatusBadRequest, "Send one of session_token, session_jwt and intermediate_session_token, not several."},
	TooManyRevokeArguments:              {http.StatusBadRequest, "Send exactly one of member_session_id, session_token, session_jwt and member_id."},
	IntermediateSessionNotFound:         {http.StatusNotFound, "Intermediate session not found, expired or already used."},
	CreateOrganizationDisabled:          {http.StatusForbidden, "Creating organizations is disabled for this project."},
	EmailDeliveryFailed:                 {http.StatusServiceUnavailable, "The email could not be sent. Please try again in a moment."},
	InternalServerError:                 {http.StatusInternalServerError, "An unexpected error occurred. Please try again later."},
	ResourceNotFound:                    {http.StatusNotFound, "Something this request depends on was deleted while the request ran."},

	CustomClaimsTooLarge:       {http.StatusBadRequest, "The session's custom claims would exceed 4096 bytes of JSON; send a key with null to delete it."},
	StytchClaimsInCustomClaims: {http.StatusBadRequest, "Custom claims cannot use keys starting with https://stytch.com/, in any case: the session and organization claims are the server's own."},
	UnrepresentableClaims:      {http.StatusBadRequest, "The session's custom claims cannot be represented as JSON."},

	EmailInvitesNotAllowed:              {http.StatusForbidden, "This organization does not allow members to be invited by email."},
	InvalidEmailForInvites:              {http.StatusForbidden, "This email address's domain is not allowed to be invited to this organization."},
	NoInviteRedirectURLsSet:             {http.StatusBadRequest, "No invite redirect URL is registered for this project."},
	OrganizationExternalIDUsed:          {http.StatusBadRequest, "An organization with this external ID already exists in the project."},
	NoDeletedMemberFoundForReactivation: {http.StatusBadRequest, "Only a deleted member can be reactivated."},
	EmailUnverifiedForReactivation:      {http.StatusBadRequest, "This member's email address was never verified, so the member cannot be reactivated; invite the address again to create a new member."},
	DuplicateMemberExternalID:           {http.StatusBadRequest, "A member with this external ID already exists in the organization."},
	InvalidMFADefaultMethod:             {http.StatusBadRequest, "default_mfa_method must be sms_otp or totp."},
	DefaultMFAMemberMissingFactor:       {http.StatusBadRequest, "The member has no verified factor of this method, so it cannot be their default MFA method."},
	CannotPreserveExistingSessions:      {http.StatusBadRequest, "An email address change always ends the member's sessions; preserve_existing_sessions cannot keep them."},
	OrganizationNameMissing:             {http.StatusBadRequest, "organization_name is required to create an organization."},
	InvalidOrganizationName:             {http.StatusBadRequest, "organization_name must be 1 to 128 characters, at least one visible, without control or bidirectional formatting characters."},
	InvalidSSODefaultConnection:         {http.StatusBadRequest, "sso_default_connection_id must name one of the organization's SSO connections."},
	MetadataTooManyKeys:                 {http.StatusBadRequest, "Metadata objects may contain at most 20 top-level keys."},
	MetadataTooLarge:                    {http.StatusBadRequest, "Metadata objects cannot exceed 4KB."},

	MemberSearchEmailFuzzyTooShort:      {http.StatusBadRequest, "member_email_fuzzy needs at least 3 characters: fuzzy search filters require a minimum of three."},
	MemberSearchMFAPhoneFuzzyTooShort:   {http.StatusBadRequest, "member_mfa_phone_number_fuzzy needs at least 3 characters: fuzzy search filters require a minimum of three."},
	OrgSearchNameFuzzyTooShort:          {http.StatusBadRequest, "organization_name_fuzzy needs at least 3 characters: fuzzy search filters require a minimum of three."},
	OrgSearchSlugFuzzyTooShort:          {http.StatusBadRequest, "organization_slug_fuzzy needs at least 3 characters: fuzzy search filters require a minimum of three."},
	OrgSearchMemberEmailFuzzyTooShort:   {http.StatusBadRequest, "member_email_fuzzy needs at least 3 characters: fuzzy search filters require a minimum of three."},
	OrgSearchAllowedDomainFuzzyTooShort: {http.StatusBadRequest, "allowed_domain_fuzzy needs at least 3 characters: fuzzy search filters require a minimum of three."},

	InvalidClaimedDomain:           {http.StatusBadRequest, "A claimed email domain must be a valid email domain."},
	ClaimedDomainTooCommon:         {http.StatusBadRequest, "Common email domains such as gmail.com cannot be claimed by an organization: anyone can have an address there."},
	DuplicateClaimedDomain:         {http.StatusBadRequest, "This email domain is already claimed by another organization of the project."},
	OrgSearchMissingClaimedDomains: {http.StatusBadRequest, "The claimed_email_domains filter needs a non-empty list of email domains."},

	MFAMethodRestricted:              {http.StatusForbidden, "This organization does not allow this multi-factor authentication method."},
	ActionOnlyForActiveMembers:       {http.StatusBadRequest, "Multi-factor authentication is available only to active members."},
	EmailUpdatesOnlyForActiveMembers: {http.StatusBadRequest, "Only an active member can update their email address."},
	TOTPNotFound:                     {http.StatusNotFound, "No authenticator app is registered for this member."},
	UnableToAuthRecoveryCode:         {http.StatusUnauthorized, "Invalid backup code, please try again."},
	NoActiveRecoveryCodeBackedFactor: {http.StatusBadRequest, "This member has no authenticator app, so no recovery codes."},
	RecoveryCodesNotFound:            {http.StatusNotFound, "These recovery codes can no longer be shown (an earlier version erased them once one was used). Rotate them to get a new set."},
	SMSDeliveryFailed:                {http.StatusServiceUnavailable, "The text message could not be sent. Please try again in a moment."},

	TenancyMismatch:                  {http.StatusForbidden, "The member belongs to a different organization than the one named in the request."},
	CannotAssignDefaultRole:          {http.StatusBadRequest, "stytch_member is every member's role already and cannot be assigned explicitly; leave it out of roles."},
	SessionAuthorizationError:        {http.StatusForbidden, "The Member is not authorized to perform the requested action on that resource."},
	SessionAuthorizationTenancyError: {http.StatusForbidden, "The session belongs to a different organization than the one the authorization check names."},

	WeakPassword:                 {http.StatusBadRequest, "Password does not meet the strength requirements. Check it with the strength check for feedback."},
	SessionTooOldToResetPassword: {http.StatusBadRequest, "The session cannot reset the password: none of its authentication factors was completed in the last 5 minutes. Log in again first."},
	ResetToExistingPassword:      {http.StatusBadRequest, "The new password must differ from the existing one."},

	OAuthConfigNotFound:      {http.StatusBadRequest, "This OAuth provider is not configured for the project. An operator configures it with `latchkey project oauth`."},
	OAuthProviderNotFound:    {http.StatusBadRequest, "The OAuth provider must be one of google, microsoft, hubspot, slack or github."},
	OAuthUnverifiedEmail:     {http.StatusForbidden, "The OAuth provider has not verified this email address, so it cannot be used to log in."},
	OAuthStateMismatch:       {http.StatusBadRequest, "The OAuth state does not belong to this browser: the login must finish in the browser that started it. Please start the login again."},
	IDTokenExpired:           {http.StatusUnauthorized, "The ID token has expired."},
	IDTokenIncorrectAudience: {http.StatusUnauthorized, "The ID token was issued for another client than this project's Google client ID."},
	IDTokenNonceInvalid:      {http.StatusUnauthorized, "The ID token's nonce does not fit this sign-in."},
	IDTokenInvalid:           {http.StatusUnauthorized, "The ID token could not be verified."},
	OAuthTenantJITForbidden:  {http.StatusForbidden, "This organization does not let members of this provider account join automatically."},

	SessionTooOld:           {http.StatusForbidden, "This change needs a recent login: none of the session's authentication factors was completed in the last 5 minutes. Authenticate again first."},
	UnsupportedParameter:    {http.StatusBadRequest, "This parameter is not supported by this server."},
	ConnectedAppNotFound:    {http.StatusNotFound, "Connected app not found."},
	InvalidRedirectURI:      {http.StatusBadRequest, "The redirect URI does not exactly match a URL registered for this connected app."},
	InvalidScope:            {http.StatusBadRequest, "A requested scope is unknown or not available to this connected app."},
	UnsupportedResponseType: {http.StatusBadRequest, "Only the authorization code flow is supported: response_type must be code."},
	LoginRequired:           {http.StatusUnauthorized, "The member must log in again before authorizing this app."},
	M2MClientNotFound:       {http.StatusNotFound, "M2M client not found."},

	ConnectedAppAlreadyRotatingSecret: {http.StatusBadRequest, "A secret rotation is already in progress for this connected app: complete or cancel it first."},
	ConnectedAppNotRotatingSecret:     {http.StatusBadRequest, "No secret rotation is in progress for this connected app: start one first."},
	M2MClientAlreadyRotatingSecret:    {http.StatusBadRequest, "A secret rotation is already in progress for this M2M client: complete or cancel it first."},
	M2MClientNotRotatingSecret:        {http.StatusBadRequest, "No secret rotation is in progress for this M2M client: start one first."},
	DuplicateM2MClientID:              {http.StatusBadRequest, "An M2M client with this client_id already exists in the project."},
	InvalidM2MClientStatus:            {http.StatusBadRequest, "status must be active or inactive."},
	InvalidM2MClientScope:             {http.StatusBadRequest, "Each scope is a non-empty string without spaces, quotes or backslashes (RFC 6749 3.3)."},
	InsecureM2MClientSecret: {http.StatusBadRequest, "A chosen client_secret must be at least 32 characters long and random, " +
		"as a generated one is: leave client_secret out to have one generated."},
	M2MClientInvalidClientSecret: {http.StatusBadRequest, "A chosen client_secret is at most 256 characters."},
	M2MSearchExpectedStrings:     {http.StatusBadRequest, "filter_value must be a list of strings."},
	M2MSearchFilterNameNotString: {http.StatusBadRequest, "filter_name must be a string."},
	M2MSearchFilterNameUnknown:   {http.StatusBadRequest, "filter_name must be client_id, client_name or scopes."},
	M2MSearchMissingFilterName:   {http.StatusBadRequest, "Each search operand needs a filter_name."},
	M2MSearchMissingFilterValue:  {http.StatusBadRequest, "Each search operand needs a filter_value."},

	SSOConnectionNotFound:       {http.StatusNotFound, "SSO connection not found."},
	SSOConnectionNotActive:      {http.StatusBadRequest, "This SSO connection is not active yet: its identity provider settings are incomplete."},
	ExternalConnectionNotActive: {http.StatusBadRequest, "This external SSO connection is not active: the connection it uses is inactive or gone, or it is inactive itself."},
	SSOTokenNotFound:            {http.StatusNotFound, "The SSO token could not be found: it is wrong, expired or already used."},
	MissingSAMLRelayState:       {http.StatusBadRequest, "The SAML response carries no RelayState, so it cannot be matched to a login started here. Please start again."},
	MissingOIDCStateParam:       {http.StatusBadRequest, "The OIDC callback carries no state, so it cannot be matched to a login started here. Please start again."},
	UnsolicitedSAMLResponse: {http.StatusBadRequest, "The SAML response does not answer a login started here for this connection " +
		"(it is unknown, expired or already used, or its InResponseTo does not match). Please start again."},
	UnsolicitedOIDCResponse: {http.StatusBadRequest, "The OIDC callback does not answer a login started here for this connection " +
		"(it is unknown, expired or already used). Please start again."},
	MissingSAMLResponse:                 {http.StatusBadRequest, "The request carries no SAMLResponse."},
	InvalidXMLSAMLResponse:              {http.StatusBadRequest, "The SAML response is not base64-encoded XML that can be read."},
	InvalidSAMLResponse:                 {http.StatusBadRequest, "The SAML response is malformed or fails validation (issuer, destination, recipient or status)."},
	MissingSignatureSAMLResponse:        {http.StatusBadRequest, "Neither the SAML response nor its assertion is signed."},
	InvalidSignatureSAMLResponse:        {http.StatusBadRequest, "The SAML response is not signed by the identity provider's certificate."},
	InvalidAudienceSAMLResponse:         {http.StatusBadRequest, "The SAML assertion is meant for another service provider (audience mismatch)."},
	ExpiredSAMLResponse:                 {http.StatusBadRequest, "The SAML assertion has expired."},
	NotYetValidSAMLResponse:             {http.StatusBadRequest, "The SAML assertion is not valid yet (NotBefore is in the future)."},
	DuplicateSAMLResponse:               {http.StatusBadRequest, "The SAML assertion was already used."},
	InvalidSAMLResponseEmail:            {http.StatusBadRequest, "The SAML response carries no usable email address for this user."},
	OIDCInvalidCallbackRequest:          {http.StatusBadRequest, "The OIDC callback carries no authorization code."},
	OIDCAuthCodeError:                   {http.StatusBadRequest, "The identity provider refused to exchange the authorization code."},
	OIDCInvalidIDToken:                  {http.StatusBadRequest, "The identity provider's ID token failed validation (issuer, audience, expiry, nonce or signature)."},
	OIDCInvalidUserinfo:                 {http.StatusBadRequest, "The identity provider's userinfo answer could not be read."},
	OIDCResponseSubjectMismatch:         {http.StatusBadRequest, "The identity provider's userinfo answer is about another subject than its ID token."},
	OIDCResponseUnverifiedEmail:         {http.StatusBadRequest, "The identity provider says this user's email address is not verified."},
	OIDCResponseEmailMissing:            {http.StatusBadRequest, "The identity provider did not send an email address for this user."},
	SSOIdentityProviderError:            {http.StatusBadRequest, "The identity provider refused the login or could not be reached."},
	InvalidConnectionForJITProvisioning: {http.StatusForbidden, "This organization does not allow new members to join through this SSO connection."},
	InvalidSAMLMetadataURL:              {http.StatusBadRequest, "The identity provider's metadata could not be fetched from metadata_url."},
	InvalidXMLFromSAMLMetadataURL:       {http.StatusBadRequest, "The document at metadata_url is not SAML identity provider metadata this server can use."},
	SSOVerificationKeyNotFound:          {http.StatusNotFound, "The SSO connection has no such verification certificate."},
	SSOEncryptionKeyNotFound:            {http.StatusNotFound, "The SSO connection has no such encryption private key."},
	CannotDeleteLastSSOVerificationKey: {http.StatusBadRequest, "An active SAML connection needs at least one verification certificate: " +
		"upload the new certificate first, then delete the old one."},
	TooManySSOVerificationCertificates: {http.StatusBadRequest, "A SAML connection has at most 5 verification certificates: " +
		"delete one it no longer needs before adding another."},
	TooManyEncryptionCertificates: {http.StatusBadRequest, "A SAML connection has at most 5 encryption private keys: " +
		"delete one it no longer needs before adding another."},
	EncryptionKeyNotConfigured: {http.StatusServiceUnavailable, "This server has no LATCHKEY_ENCRYPTION_KEY, so it cannot store private keys or client secrets."},

	DuplicateExternalSSOConnection: {http.StatusBadRequest, "The organization already has an external connection to this connection."},
	ExternalOrganizationIsOwn:      {http.StatusBadRequest, "external_organization_id must name another organization: an organization uses its own connections directly."},

	NoActiveSCIMConnection:         {http.StatusNotFound, "SCIM connection not found."},
	ActiveSCIMConnectionExists:     {http.StatusBadRequest, "This organization already has a SCIM connection; an organization has at most one. Update or delete it instead."},
	SCIMConnectionNotRotatingToken: {http.StatusBadRequest, "No bearer token rotation is in progress for this SCIM connection: start one first."},
	InvalidSCIMIdP:                 {http.StatusBadRequest, "identity_provider is not one of the supported SCIM identity providers."},
	InvalidDisplayName:             {http.StatusBadRequest, "display_name is too long."},
	SCIMGroupRoleAssignmentNoGroupID: {http.StatusBadRequest,
		"Each scim_group_implicit_role_assignments entry needs a group_id."},
	SCIMGroupRoleAssignmentNoSuchGroup: {http.StatusBadRequest,
		"A scim_group_implicit_role_assignments entry names a group this SCIM connection does not have; the identity provider must push it first."},
	EmptyRBACRoleID: {http.StatusBadRequest, "A role_id is required."},

	TrustedTokenProfileNotFound:          {http.StatusNotFound, "The trusted auth token profile could not be found."},
	TrustedTokenProfileInvalid:           {http.StatusBadRequest, "The trusted auth token profile is invalid."},
	InvalidTrustedAuthToken:              {http.StatusUnauthorized, "The trusted auth token failed validation (signature, issuer, audience, expiry, or it was already used)."},
	TrustedAuthTokenKeysUnavailable:      {http.StatusBadGateway, "The token profile's signing keys could not be fetched from its JWKS URL."},
	TokenMissingOrganizationIDClaim:      {http.StatusBadRequest, "The trusted auth token names no organization: send organization_id or map an organization_id claim."},
	InvalidTokenOrganizationIDClaim:      {http.StatusBadRequest, "The organization_id sent differs from the organization the trusted auth token names."},
	AccessTokenExchangeInvalidGrant:      {http.StatusUnauthorized, "The access token is unknown, expired, revoked or already exchanged."},
	AccessTokenExchangeMissingFullAccess: {http.StatusForbidden, "Only access tokens with the full_access scope can be exchanged for a session."},
	AccessTokenExchangeTooOld:            {http.StatusBadRequest, "Access tokens can be exchanged for a session only within five minutes of being issued."},
	MigrateMissingUserinfo:               {http.StatusBadRequest, "No userinfo URL to migrate sessions from is configured for this project (latchkey project session-migration)."},
	MigrateEmailDoesNotExist:             {http.StatusNotFound, "No member of the organization has the email the previous provider returned; import the member first."},
	MigrateUnexpectedResponse:            {http.StatusBadRequest, "The previous provider's userinfo endpoint did not confirm the session with an email."},
	MigrateUserinfoUnavailable:           {http.StatusBadGateway, "The previous provider's userinfo endpoint could not be reached."},

	UnableToAuthImpersonationToken: {http.StatusUnauthorized, "The impersonation token could not be authenticated because it was either already used or expired."},
}
