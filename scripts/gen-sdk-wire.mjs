#!/usr/bin/env node
// Generates internal/apptest/sdk_wire.json: for every route of the SDK face (the public token's
// face), the JSON fields its answer may carry. The fields come from the response type that the
// browser SDK (@stytch/vanilla-js, pinned in e2e/package.json) declares for the call, resolved with
// the TypeScript compiler, minus the fields Latchkey withholds from browsers (WITHHELD below).
// Each object also lists, under "(required)", the fields the SDK declares without `?`: an answer
// lacking one fails as an extra field does, unless UNSENT below excuses it with a reason.
// apptest checks every SDK answer of every Go test against this file, and
// TestEverySDKRouteHasAWireAllowlist fails for an SDK route without an entry.
//
// Adding an SDK route: add ONE line to ROUTES (the route pattern exactly as mounted, and the name of
// the response type the SDK declares for that call; find it in
// e2e/node_modules/@stytch/vanilla-js/dist/types/*.d.ts next to the client method that calls the
// URL), or, for a call the SDK has no public type for, to CUSTOM (a TypeScript type literal of what
// the browser reads, with a comment saying who reads it). Then run
//
//     node scripts/gen-sdk-wire.mjs
//
// (needs `npm ci` in e2e/ and web/widget/, which make test does) and commit the JSON.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { extend, resolveShapes, ROOT, stringify, toJSON } from './wire-shapes.mjs';

const SDK = path.join(ROOT, 'e2e/node_modules/@stytch/vanilla-js');
const TYPES = path.join(SDK, 'dist/types');
const OUT = path.join(ROOT, 'internal/apptest/sdk_wire.json');

// Route pattern (as mounted on the SDK face) -> response type declared by @stytch/vanilla-js.
const ROUTES = {
  'POST /sdk/v1/b2b/organizations/search': 'B2BOrganizationsGetBySlugResponse',
  'POST /sdk/v1/b2b/magic_links/email/login_or_signup': 'B2BMagicLinkLoginOrSignupResponse',
  'POST /sdk/v1/b2b/magic_links/authenticate': 'B2BMagicLinksAuthenticateResponse',
  'POST /sdk/v1/b2b/otps/email/login_or_signup': 'B2BOTPsEmailLoginOrSignupResponse',
  'POST /sdk/v1/b2b/otps/email/authenticate': 'B2BOTPsEmailAuthenticateResponse',
  'POST /sdk/v1/b2b/passwords/strength_check': 'B2BPasswordStrengthCheckResponse',
  'POST /sdk/v1/b2b/passwords/authenticate': 'B2BPasswordAuthenticateResponse',
  'POST /sdk/v1/b2b/passwords/email/reset/start': 'B2BPasswordResetByEmailStartResponse',
  'POST /sdk/v1/b2b/passwords/email/reset': 'B2BPasswordResetByEmailResponse',
  'POST /sdk/v1/b2b/passwords/existing_password/reset': 'B2BPasswordResetByExistingPasswordResponse',
  'POST /sdk/v1/b2b/passwords/session/reset': 'B2BPasswordResetBySessionResponse',
  'POST /sdk/v1/b2b/passwords/discovery/authenticate': 'B2BPasswordDiscoveryAuthenticateResponse',
  'POST /sdk/v1/b2b/passwords/discovery/reset/start': 'B2BPasswordDiscoveryResetByEmailStartResponse',
  'POST /sdk/v1/b2b/passwords/discovery/reset': 'B2BPasswordDiscoveryResetByEmailResponse',
  'POST /sdk/v1/b2b/sessions/authenticate': 'B2BSessionAuthenticateResponse',
  'POST /sdk/v1/b2b/sessions/revoke': 'SessionRevokeResponse',
  'POST /sdk/v1/b2b/sessions/revoke/{member_id}': 'B2BSessionRevokeForMemberResponse',
  'GET /sdk/v1/b2b/organizations/me': 'B2BOrganizationsUpdateResponse', // organization.get reads resp.organization (no own type)
  'PUT /sdk/v1/b2b/organizations/me': 'B2BOrganizationsUpdateResponse',
  'DELETE /sdk/v1/b2b/organizations/me': 'B2BOrganizationsDeleteResponse',
  'POST /sdk/v1/b2b/organizations/me/members/search': 'B2BOrganizationsMembersSearchResponse',
  'POST /sdk/v1/b2b/organizations/members': 'B2BOrganizationsMembersCreateResponse',
  'GET /sdk/v1/b2b/organizations/members/me': 'MemberResponseCommon', // self.get reads resp.member
  'PUT /sdk/v1/b2b/organizations/members/update': 'B2BMemberUpdateResponse',
  'PUT /sdk/v1/b2b/organizations/members/{member_id}': 'B2BOrganizationsMembersUpdateResponse',
  'DELETE /sdk/v1/b2b/organizations/members/{member_id}': 'B2BOrganizationsMembersDeleteResponse',
  'PUT /sdk/v1/b2b/organizations/members/{member_id}/reactivate': 'B2BOrganizationsMembersReactivateResponse',
  'POST /sdk/v1/b2b/magic_links/email/invite': 'B2BMagicLinksInviteResponse',
  'POST /sdk/v1/b2b/magic_links/email/discovery/send': 'B2BMagicLinksEmailDiscoverySendResponse',
  'POST /sdk/v1/b2b/magic_links/discovery/authenticate': 'B2BMagicLinksDiscoveryAuthenticateResponse',
  'POST /sdk/v1/b2b/otps/email/discovery/send': 'B2BDiscoveryOTPEmailSendResponse',
  'POST /sdk/v1/b2b/otps/email/discovery/authenticate': 'B2BDiscoveryOTPEmailAuthenticateResponse',
  'POST /sdk/v1/b2b/discovery/organizations': 'B2BDiscoveryOrganizationsResponse',
  'POST /sdk/v1/b2b/discovery/organizations/create': 'B2BDiscoveryOrganizationsCreateResponse',
  'POST /sdk/v1/b2b/discovery/intermediate_sessions/exchange': 'B2BDiscoveryIntermediateSessionsExchangeResponse',
  'POST /sdk/v1/b2b/sessions/exchange': 'B2BSessionExchangeResponse',
  'POST /sdk/v1/b2b/sessions/attest': 'B2BSessionAttestResponse',
  'POST /sdk/v1/b2b/sessions/exchange_access_token': 'B2BSessionAccessTokenExchangeResponse',
  'POST /sdk/v1/b2b/impersonation/authenticate': 'B2BImpersonationAuthenticateResponse',
  'POST /sdk/v1/b2b/otps/sms/send': 'B2BSMSSendResponse',
  'POST /sdk/v1/b2b/otps/sms/authenticate': 'B2BSMSAuthenticateResponse',
  'POST /sdk/v1/b2b/totp': 'B2BTOTPCreateResponse',
  'POST /sdk/v1/b2b/totp/authenticate': 'B2BTOTPAuthenticateResponse',
  'POST /sdk/v1/b2b/recovery_codes/recover': 'RecoveryCodeRecoverResponse',
  'POST /sdk/v1/b2b/recovery_codes/rotate': 'RecoveryCodeRotateResponse',
  'GET /sdk/v1/b2b/recovery_codes': 'RecoveryCodeGetResponse',
  'DELETE /sdk/v1/b2b/organizations/members/deleteTOTP': 'B2BMemberDeleteMFATOTPResponse',
  'DELETE /sdk/v1/b2b/organizations/members/deletePhoneNumber': 'B2BMemberDeleteMFAPhoneNumberResponse',
  'POST /sdk/v1/b2b/organizations/members/start_email_update': 'B2BMemberStartEmailUpdateResponse',
  'POST /sdk/v1/b2b/organizations/members/{member_id}/start_email_update': 'B2BOrganizationsMemberStartEmailUpdateResponse',
  'POST /sdk/v1/b2b/organizations/members/unlink_retired_email': 'B2BMemberUnlinkRetiredEmailResponse',
  'POST /sdk/v1/b2b/organizations/members/{member_id}/unlink_retired_email': 'B2BOrganizationsMemberUnlinkRetiredEmailResponse',
  'DELETE /sdk/v1/b2b/organizations/members/passwords/{member_password_id}': 'B2BMemberDeletePasswordResponse',
  'DELETE /sdk/v1/b2b/organizations/members/mfa_phone_numbers/{member_id}': 'B2BOrganizationsMemberDeleteMFAPhoneNumberResponse',
  'DELETE /sdk/v1/b2b/organizations/members/totp/{member_id}': 'B2BOrganizationsMemberDeleteMFATOTPResponse',
  'GET /sdk/v1/b2b/organizations/connected_apps': 'B2BOrganizationsGetConnectedAppsResponse',
  'GET /sdk/v1/b2b/organizations/connected_apps/{connected_app_id}': 'B2BOrganizationsGetConnectedAppResponse',
  'GET /sdk/v1/b2b/organizations/members/connected_apps': 'B2BMemberGetConnectedAppsResponse',
  'GET /sdk/v1/b2b/organizations/members/{member_id}/connected_apps': 'B2BOrganizationsMemberGetConnectedAppsResponse',
  'GET /sdk/v1b2b/organizations/members/{member_id}/connected_apps': 'B2BOrganizationsMemberGetConnectedAppsResponse', // the SDK's own spelling (api-reference §1.4)
  'POST /sdk/v1/b2b/organizations/members/connected_apps/{connected_app_id}/revoke': 'B2BMemberRevokeConnectedAppResponse',
  'POST /sdk/v1/b2b/organizations/members/{member_id}/connected_apps/{connected_app_id}/revoke': 'B2BOrganizationsMemberRevokeConnectedAppResponse',
  'POST /sdk/v1/b2b/oauth/authenticate': 'B2BOAuthAuthenticateResponse',
  'POST /sdk/v1/b2b/oauth/discovery/authenticate': 'B2BOAuthDiscoveryAuthenticateResponse',
  'POST /sdk/v1/idp/b2b/oauth/authorize/start': 'B2BOAuthAuthorizeStartResponse',
  'POST /sdk/v1/idp/b2b/oauth/authorize/submit': 'B2BOAuthAuthorizeSubmitResponse',
  'POST /sdk/v1/b2b/oauth/logout/start': 'B2BOAuthLogoutStartResponse',
  'POST /sdk/v1/b2b/sso/authenticate': 'SSOAuthenticateResponse',
  'GET /sdk/v1/b2b/sso/discovery/connections': 'B2BSSODiscoverConnectionsResponse',
  'GET /sdk/v1/b2b/sso': 'B2BSSOGetConnectionsResponse',
  'DELETE /sdk/v1/b2b/sso/{connection_id}': 'B2BSSODeleteConnectionResponse',
  'POST /sdk/v1/b2b/sso/saml': 'B2BSSOSAMLCreateConnectionResponse',
  'PUT /sdk/v1/b2b/sso/saml/{connection_id}': 'B2BSSOSAMLUpdateConnectionResponse',
  'PUT /sdk/v1/b2b/sso/saml/{connection_id}/url': 'B2BSSOSAMLUpdateConnectionByURLResponse',
  'DELETE /sdk/v1/b2b/sso/saml/{connection_id}/verification_certificates/{certificate_id}': 'B2BSSOSAMLDeleteVerificationCertificateResponse',
  'DELETE /sdk/v1/b2b/sso/saml/{connection_id}/encryption_private_key/{private_key_id}': 'B2BSSOSAMLDeleteEncryptionPrivateKeyResponse',
  'POST /sdk/v1/b2b/sso/oidc': 'B2BSSOOIDCCreateConnectionResponse',
  'PUT /sdk/v1/b2b/sso/oidc/{connection_id}': 'B2BSSOOIDCUpdateConnectionResponse',
  'POST /sdk/v1/b2b/sso/external': 'B2BSSOCreateExternalConnectionResponse',
  'PUT /sdk/v1/b2b/sso/external/{connection_id}': 'B2BSSOUpdateExternalConnectionResponse',
  'POST /sdk/v1/b2b/scim': 'B2BSCIMCreateConnectionResponse',
  'GET /sdk/v1/b2b/scim': 'B2BSCIMGetConnectionResponse',
  'PUT /sdk/v1/b2b/scim/{connection_id}': 'B2BSCIMUpdateConnectionResponse',
  'DELETE /sdk/v1/b2b/scim/{connection_id}': 'B2BSCIMDeleteConnectionResponse',
  'POST /sdk/v1/b2b/scim/groups': 'B2BSCIMGetConnectionGroupsResponse',
  'POST /sdk/v1/b2b/scim/rotate/start': 'B2BSCIMRotateStartResponse',
  'POST /sdk/v1/b2b/scim/rotate/complete': 'B2BSCIMRotateCompleteResponse',
  'POST /sdk/v1/b2b/scim/rotate/cancel': 'B2BSCIMRotateCancelResponse',
};

// SDK calls without a public response type: what the browser reads, as a TypeScript type literal.
const COMMON = 'request_id: string; status_code: number;';
const CUSTOM = {
  // The SDK UI's password screens (SearchManager.searchMember) and the widget (api/passwords.ts) read
  // whether a member exists and has a password; nothing else about a stranger's account.
  'POST /sdk/v1/b2b/organizations/members/search': `{ ${COMMON} member: { status: string; name: string; member_password_id: string } | null }`,
  // Project settings the SDK reads at start-up (api-reference section 2); no member data.
  'GET /sdk/v1/projects/bootstrap/{public_token}': `{ ${COMMON} project_name: string; disable_sdk_watermark: boolean;
    cname_domain: string | null; email_domains: string[]; captcha_settings: { enabled: boolean };
    pkce_required_for_email_magic_links: boolean; pkce_required_for_password_resets: boolean;
    pkce_required_for_oauth: boolean; pkce_required_for_sso: boolean; slug_pattern: string | null;
    create_organization_enabled: boolean;
    password_config: { luds_complexity: number; luds_minimum_count: number } | null;
    dfp_protected_auth_enabled: boolean; dfp_protected_auth_mode: string;
    rbac_policy: { roles: unknown[]; resources: unknown[]; scopes: unknown[] };
    siwe_required_for_crypto_wallets: boolean; vertical: string }`,
  // The SDK's telemetry beacon ignores the answer.
  'POST /sdk/v1/events': `{ ${COMMON} }`,
  // Google One Tap (GoogleOneTapClient): the client id to load Google's script with, and the URL the
  // browser visits after a submitted ID token.
  'GET /sdk/v1/b2b/oauth/google/onetap/start': `{ ${COMMON} google_client_id: string }`,
  'POST /sdk/v1/b2b/oauth/google/onetap/submit': `{ ${COMMON} redirect_url: string }`,
  'POST /sdk/v1/b2b/oauth/google/onetap/discovery/submit': `{ ${COMMON} redirect_url: string }`,
  // The Admin Portal's feature switches (adminPortal/utils/useAdminPortalConfig and its readers).
  'GET /sdk/v1/b2b/admin_portal_config': `{ ${COMMON}
    sso_config: { sso_enabled: boolean; can_create_saml_connection: boolean; can_create_oidc_connection: boolean };
    organization_config: { mfa_controls_enabled: boolean }; scim_config: { scim_enabled: boolean } }`,
};

// Latchkey's additions to an SDK-declared answer (merged into the route's ROUTES type), with who
// reads them.
const EXTRA = {
  // authorization_check's verdict (api-reference 5.4, RBAC): the Node client types it for the backend
  // face; a browser that sends the check reads the same field.
  'POST /sdk/v1/b2b/sessions/authenticate': `{ verdict: { authorized: boolean; granting_roles: string[] } }`,
  // An attested token is a primary login, so the organization's MFA and auth-method policies answer
  // with an IST as for every login (the widget's trustedAuthTokenParams reads member_authenticated).
  'POST /sdk/v1/b2b/sessions/attest': `{ member_authenticated: boolean; intermediate_session_token: string;
    mfa_required: { member_options: { mfa_phone_number: string; totp_registration_id: string };
      secondary_auth_initiated: string | null } | null;
    primary_required: { allowed_auth_methods: string[] } | null }`,
};

// Fields the SDK declares that Latchkey never sends to a browser, with the reason. They are left
// out of every answer on the SDK face (the backend face still has them).
const WITHHELD = {
  // Written only with the project secret; customers keep server-side facts there.
  Member: ['trusted_metadata', 'retired_email_addresses'],
  Organization: ['trusted_metadata'],
};

// Fields the SDK declares as required (no `?`) that Latchkey deliberately does not send, each with
// the reason (a feature Latchkey does not have): { TypeName: { field: reason } }. They stay allowed;
// apptest stops requiring them. Everything else the SDK requires, every answer carries.
const UNSENT = {
  // The SDK types strength_check's answer as MemberResponseCommon & {...}, but the call takes no
  // session (a sign-up form checks a password before any member exists) and Stytch's answer carries
  // no member: api-reference 3 lists its fields (valid_password, score, ...; "typed as
  // MemberResponseCommon too"), and the Node client's B2BPasswordsStrengthCheckResponse has none.
  B2BPasswordStrengthCheckResponse: Object.fromEntries(['member_id', 'member', 'organization'].map((f) =>
    [f, 'no member: the call is sessionless and Stytch answers without one (api-reference 3, passwords)'])),
  // GET b2b/scim of an organization with no SCIM connection has none to send; Stytch omits the field
  // then (the Node client's B2BSCIMConnectionGetResponse declares connection?); the Admin Portal
  // (useScimConnection) calls it only when the organization's scim_active_connection names one.
  B2BSCIMGetConnectionResponse: {
    connection: 'an organization without a SCIM connection has none; Stytch omits it (Node type: connection?)',
  },
};

const shapes = resolveShapes({
  typesDir: TYPES,
  names: [...new Set(Object.values(ROUTES))],
  literals: { ...CUSTOM, ...Object.fromEntries(Object.entries(EXTRA).map(([r, l]) => [`extra ${r}`, l])) },
  withheld: WITHHELD,
  unsent: Object.fromEntries(Object.entries(UNSENT).map(([t, fs]) => [t, Object.keys(fs)])),
});
const version = JSON.parse(readFileSync(path.join(SDK, 'package.json'), 'utf8')).version;
const routes = {};
for (const [route, name] of Object.entries(ROUTES)) routes[route] = { type: name, fields: shapes.named[name] };
for (const route of Object.keys(EXTRA)) routes[route].fields = extend(routes[route].fields, shapes.literal[`extra ${route}`]);
for (const route of Object.keys(CUSTOM)) routes[route] = { type: 'custom (scripts/gen-sdk-wire.mjs)', fields: shapes.literal[route] };
const sorted = Object.fromEntries(Object.entries(routes).sort(([a], [b]) => a.localeCompare(b))
  .map(([route, r]) => [route, { type: r.type, fields: toJSON(r.fields) }]));
const doc = {
  comment: `Generated by scripts/gen-sdk-wire.mjs from @stytch/vanilla-js ${version}; do not edit. Fields each SDK-face answer may carry ("true": a value with no further schema) and, under "(required)", the ones each object must carry (the SDK declares them without "?"); "unsent": required fields Latchkey deliberately does not send, and why.`,
  withheld: WITHHELD,
  unsent: UNSENT,
  routes: sorted,
};
writeFileSync(OUT, stringify(doc));
console.log(`gen-sdk-wire: ${Object.keys(sorted).length} routes -> ${path.relative(ROOT, OUT)}`);
