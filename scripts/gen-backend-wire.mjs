#!/usr/bin/env node
// Generates internal/apptest/backend_wire.json: for every route of the backend face (/v1/..., the
// project secret's face), the JSON fields its answer may carry. The fields come from the response
// type that the Node client (`stytch`, pinned in e2e/package.json) declares for the call, resolved
// with the TypeScript compiler (scripts/wire-shapes.mjs, shared with gen-sdk-wire.mjs), plus the
// deliberate Latchkey extensions listed in EXTRA (per route) and ADDED (per type); each object lists
// under "(required)" the fields the client declares without `?` (an answer must carry them unless
// UNSENT excuses one; the extensions are never required). apptest checks every successful backend answer of
// every Go test against this file, and TestEveryBackendRouteHasAWireAllowlist fails for a backend
// route that is neither here nor in EXCLUDED.
//
// Adding a backend route: add ONE line to ROUTES (the route pattern exactly as mounted, and the name
// of the response type the Node client declares for that call; find it in
// e2e/node_modules/stytch/types/lib/**/*.d.ts on the client method whose dist/*.js calls the URL),
// or, for a route the Node client does not call, to CUSTOM (a TypeScript type literal of what its
// reader reads, with a comment naming the reader) or EXCLUDED (with the reason). Then run
//
//     node scripts/gen-backend-wire.mjs
//
// (needs `npm ci` in e2e/ and web/widget/, which make test does) and commit the JSON.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { extend, resolveShapes, ROOT, stringify, toJSON, union } from './wire-shapes.mjs';

const NODE = path.join(ROOT, 'e2e/node_modules/stytch');
const TYPES = path.join(NODE, 'types/lib');
const OUT = path.join(ROOT, 'internal/apptest/backend_wire.json');

// Route pattern (as mounted on the backend face) -> response type(s) the Node client declares. A
// list is a route that serves several client methods (their types merged).
const ROUTES = {
  'DELETE /v1/b2b/organizations/{organization_id}': 'B2BOrganizationsDeleteResponse',
  'DELETE /v1/b2b/organizations/{organization_id}/external_id': 'B2BOrganizationsDeleteExternalIdResponse',
  'DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}': 'B2BOrganizationsMembersDeleteResponse',
  'DELETE /v1/b2b/organizations/{organization_id}/members/{member_id}/external_id': 'B2BOrganizationsMembersDeleteExternalIdResponse',
  'DELETE /v1/b2b/scim/{organization_id}/connection/{connection_id}': 'B2BSCIMConnectionDeleteResponse',
  'DELETE /v1/b2b/sso/{organization_id}/connections/{connection_id}': 'B2BSSODeleteConnectionResponse',
  'DELETE /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/encryption_private_keys/{private_key_id}': 'B2BSSOSAMLDeleteEncryptionPrivateKeyResponse',
  'DELETE /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/verification_certificates/{certificate_id}': 'B2BSSOSAMLDeleteVerificationCertificateResponse',
  'DELETE /v1/connected_apps/clients/{client_id}': 'ConnectedAppsClientsDeleteResponse',
  'DELETE /v1/m2m/clients/{client_id}': 'M2MClientsDeleteResponse',
  'GET /v1/b2b/organizations/{organization_id}': 'B2BOrganizationsGetResponse',
  'GET /v1/b2b/organizations/{organization_id}/connected_apps': 'B2BOrganizationsConnectedAppsResponse',
  'GET /v1/b2b/organizations/{organization_id}/connected_apps/{connected_app_id}': 'B2BOrganizationsGetConnectedAppResponse',
  'GET /v1/b2b/organizations/{organization_id}/member': 'B2BOrganizationsMembersGetResponse',
  'GET /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps': 'B2BOrganizationsMembersGetConnectedAppsResponse',
  'GET /v1/b2b/organizations/{organization_id}/members/{member_id}/oidc_providers': 'B2BOrganizationsMembersOIDCProvidersResponse',
  'GET /v1/b2b/organizations/{organization_id}/metrics': 'B2BOrganizationsMetricsResponse',
  'GET /v1/b2b/organizations/members/dangerously_get/{member_id}': 'B2BOrganizationsMembersGetResponse',
  'GET /v1/b2b/rbac/organizations/{organization_id}': 'B2BRBACOrganizationsGetOrgPolicyResponse',
  'GET /v1/b2b/rbac/policy': 'B2BRBACPolicyResponse',
  'GET /v1/b2b/recovery_codes/{organization_id}/{member_id}': 'B2BRecoveryCodesGetResponse',
  'GET /v1/b2b/scim/{organization_id}/connection': 'B2BSCIMConnectionGetResponse',
  'GET /v1/b2b/scim/{organization_id}/connection/{connection_id}': 'B2BSCIMConnectionGetGroupsResponse',
  'GET /v1/b2b/sessions': 'B2BSessionsGetResponse',
  'GET /v1/b2b/sso/{organization_id}': 'B2BSSOGetConnectionsResponse',
  'GET /v1/connected_apps/clients/{client_id}': 'ConnectedAppsClientsGetResponse',
  'GET /v1/debug/whoami': 'DebugWhoamiResponse',
  'GET /v1/m2m/clients/{client_id}': 'M2MClientsGetResponse',
  'GET /v1/projects/metrics': 'ProjectMetricsResponse',
  'POST /v1/b2b/discovery/intermediate_sessions/exchange': 'B2BDiscoveryIntermediateSessionsExchangeResponse',
  'POST /v1/b2b/discovery/organizations': 'B2BDiscoveryOrganizationsListResponse',
  'POST /v1/b2b/discovery/organizations/create': 'B2BDiscoveryOrganizationsCreateResponse',
  'POST /v1/b2b/idp/oauth/authorize': 'B2BIDPOAuthAuthorizeResponse',
  'POST /v1/b2b/idp/oauth/authorize/start': 'B2BIDPOAuthAuthorizeStartResponse',
  'POST /v1/b2b/impersonation/authenticate': 'B2BImpersonationAuthenticateResponse',
  'POST /v1/b2b/magic_links/authenticate': 'B2BMagicLinksAuthenticateResponse',
  'POST /v1/b2b/magic_links/discovery/authenticate': 'B2BMagicLinksDiscoveryAuthenticateResponse',
  'POST /v1/b2b/magic_links/email/discovery/send': 'B2BMagicLinksEmailDiscoverySendResponse',
  'POST /v1/b2b/magic_links/email/invite': 'B2BMagicLinksEmailInviteResponse',
  'POST /v1/b2b/magic_links/email/login_or_signup': 'B2BMagicLinksEmailLoginOrSignupResponse',
  'POST /v1/b2b/oauth/authenticate': 'B2BOAuthAuthenticateResponse',
  'POST /v1/b2b/oauth/discovery/authenticate': 'B2BOAuthDiscoveryAuthenticateResponse',
  'POST /v1/b2b/organizations': 'B2BOrganizationsCreateResponse',
  'POST /v1/b2b/organizations/{organization_id}/members': 'B2BOrganizationsMembersCreateResponse',
  'POST /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps/{connected_app_id}/revoke': 'B2BOrganizationsMembersConnectedAppsRevokeResponse',
  'POST /v1/b2b/organizations/{organization_id}/members/{member_id}/start_email_update': 'B2BOrganizationsMembersStartEmailUpdateResponse',
  'POST /v1/b2b/organizations/{organization_id}/members/{member_id}/unlink_retired_email': 'B2BOrganizationsMembersUnlinkRetiredEmailResponse',
  'POST /v1/b2b/organizations/members/search': 'B2BOrganizationsMembersSearchResponse',
  'POST /v1/b2b/organizations/search': 'B2BOrganizationsSearchResponse',
  'POST /v1/b2b/otps/email/authenticate': 'B2BOTPEmailAuthenticateResponse',
  'POST /v1/b2b/otps/email/discovery/authenticate': 'B2BOTPEmailDiscoveryAuthenticateResponse',
  'POST /v1/b2b/otps/email/discovery/send': 'B2BOTPEmailDiscoverySendResponse',
  'POST /v1/b2b/otps/email/login_or_signup': 'B2BOTPEmailLoginOrSignupResponse',
  'POST /v1/b2b/otps/sms/authenticate': 'B2BOTPSmsAuthenticateResponse',
  'POST /v1/b2b/otps/sms/send': 'B2BOTPSmsSendResponse',
  'POST /v1/b2b/passwords/authenticate': 'B2BPasswordsAuthenticateResponse',
  'POST /v1/b2b/passwords/discovery/authenticate': 'B2BPasswordsDiscoveryAuthenticateResponse',
  'POST /v1/b2b/passwords/discovery/email/reset': 'B2BPasswordsDiscoveryEmailResetResponse',
  'POST /v1/b2b/passwords/discovery/email/reset/start': 'B2BPasswordsDiscoveryEmailResetStartResponse',
  'POST /v1/b2b/passwords/email/require_reset': 'B2BPasswordsEmailRequireResetResponse',
  'POST /v1/b2b/passwords/email/reset': 'B2BPasswordsEmailResetResponse',
  'POST /v1/b2b/passwords/email/reset/start': 'B2BPasswordsEmailResetStartResponse',
  'POST /v1/b2b/passwords/existing_password/reset': 'B2BPasswordsExistingPasswordResetResponse',
  'POST /v1/b2b/passwords/migrate': 'B2BPasswordsMigrateResponse',
  'POST /v1/b2b/passwords/session/reset': 'B2BPasswordsSessionResetResponse',
  'POST /v1/b2b/passwords/strength_check': 'B2BPasswordsStrengthCheckResponse',
  'POST /v1/b2b/recovery_codes/recover': 'B2BRecoveryCodesRecoverResponse',
  'POST /v1/b2b/recovery_codes/rotate': 'B2BRecoveryCodesRotateResponse',
  'POST /v1/b2b/scim/{organization_id}/connection': 'B2BSCIMConnectionCreateResponse',
  'POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/cancel': 'B2BSCIMConnectionRotateCancelResponse',
  'POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/complete': 'B2BSCIMConnectionRotateCompleteResponse',
  'POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/start': 'B2BSCIMConnectionRotateStartResponse',
  'POST /v1/b2b/sessions/attest': 'B2BSessionsAttestResponse',
  'POST /v1/b2b/sessions/authenticate': 'B2BSessionsAuthenticateResponse',
  'POST /v1/b2b/sessions/exchange': 'B2BSessionsExchangeResponse',
  'POST /v1/b2b/sessions/exchange_access_token': 'B2BSessionsExchangeAccessTokenResponse',
  'POST /v1/b2b/sessions/migrate': 'B2BSessionsMigrateResponse',
  'POST /v1/b2b/sessions/revoke': 'B2BSessionsRevokeResponse',
  'POST /v1/b2b/sso/authenticate': 'B2BSSOAuthenticateResponse',
  'POST /v1/b2b/sso/external/{organization_id}': 'B2BSSOExternalCreateConnectionResponse',
  'POST /v1/b2b/sso/oidc/{organization_id}': 'B2BSSOOIDCCreateConnectionResponse',
  'POST /v1/b2b/sso/saml/{organization_id}': 'B2BSSOSAMLCreateConnectionResponse',
  'POST /v1/b2b/totp': 'B2BTOTPsCreateResponse',
  'POST /v1/b2b/totp/authenticate': 'B2BTOTPsAuthenticateResponse',
  'POST /v1/b2b/totp/migrate': 'B2BTOTPsMigrateResponse',
  'POST /v1/connected_apps/clients': 'ConnectedAppsClientsCreateResponse',
  'POST /v1/connected_apps/clients/{client_id}/secrets/rotate': 'ConnectedAppsClientsSecretsRotateResponse',
  'POST /v1/connected_apps/clients/{client_id}/secrets/rotate/cancel': 'ConnectedAppsClientsSecretsRotateCancelResponse',
  'POST /v1/connected_apps/clients/{client_id}/secrets/rotate/start': 'ConnectedAppsClientsSecretsRotateStartResponse',
  'POST /v1/connected_apps/clients/search': 'ConnectedAppsClientsSearchResponse',
  'POST /v1/m2m/clients': 'M2MClientsCreateResponse',
  'POST /v1/m2m/clients/{client_id}/secrets/rotate': 'M2MClientsSecretsRotateResponse',
  'POST /v1/m2m/clients/{client_id}/secrets/rotate/cancel': 'M2MClientsSecretsRotateCancelResponse',
  'POST /v1/m2m/clients/{client_id}/secrets/rotate/start': 'M2MClientsSecretsRotateStartResponse',
  'POST /v1/m2m/clients/search': 'M2MClientsSearchResponse',
  'PUT /v1/b2b/organizations/{organization_id}': 'B2BOrganizationsUpdateResponse',
  'PUT /v1/b2b/organizations/{organization_id}/members/{member_id}': 'B2BOrganizationsMembersUpdateResponse',
  'PUT /v1/b2b/organizations/{organization_id}/members/{member_id}/reactivate': 'B2BOrganizationsMembersReactivateResponse',
  'PUT /v1/b2b/rbac/organizations/{organization_id}': 'B2BRBACOrganizationsSetOrgPolicyResponse',
  'PUT /v1/b2b/scim/{organization_id}/connection/{connection_id}': 'B2BSCIMConnectionUpdateResponse',
  'PUT /v1/b2b/sso/external/{organization_id}/connections/{connection_id}': 'B2BSSOExternalUpdateConnectionResponse',
  'PUT /v1/b2b/sso/oidc/{organization_id}/connections/{connection_id}': 'B2BSSOOIDCUpdateConnectionResponse',
  'PUT /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}': 'B2BSSOSAMLUpdateConnectionResponse',
  'PUT /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/url': 'B2BSSOSAMLUpdateByURLResponse',
  'PUT /v1/connected_apps/clients/{client_id}': 'ConnectedAppsClientsUpdateResponse',
  'PUT /v1/m2m/clients/{client_id}': 'M2MClientsUpdateResponse',
  // One pattern serves members/{member_id}/totp, members/mfa_phone_numbers/{member_id} and
  // members/passwords/{member_password_id} (their segments collide on a ServeMux).
  'DELETE /v1/b2b/organizations/{organization_id}/members/{a}/{b}': [
    'B2BOrganizationsMembersDeleteTOTPResponse',
    'B2BOrganizationsMembersDeleteMFAPhoneNumberResponse',
    'B2BOrganizationsMembersDeletePasswordResponse',
  ],
  // One pattern serves the five provider methods of organizations.members.oauthProviders.
  'GET /v1/b2b/organizations/{organization_id}/members/{member_id}/oauth_providers/{provider}': [
    'B2BOrganizationsMembersOAuthProvidersGithubResponse',
    'B2BOrganizationsMembersOAuthProvidersGoogleResponse',
    'B2BOrganizationsMembersOAuthProvidersHubspotResponse',
    'B2BOrganizationsMembersOAuthProvidersMicrosoftResponse',
    'B2BOrganizationsMembersOAuthProvidersSlackResponse',
  ],
  // sessions.getJWKS (and the client's local JWT verification). Mounted outside the secret's
  // authentication (the route table calls it public), but the Node client reads it as a backend call.
  'GET /v1/b2b/sessions/jwks/{project_id}': 'B2BSessionsGetJWKSResponse',
  // m2m.token (client_credentials); the same endpoint answers connected apps' code and refresh
  // grants, whose extra fields are in EXTRA.
  'POST /v1/public/{project_id}/oauth2/token': 'TokenResponse',
};

// Backend-face routes the Node client does not call, as a TypeScript type literal of what their
// reader reads, with a comment naming the reader.
const CUSTOM = {};

// Latchkey's deliberate additions to a Node-declared answer (merged into the route's ROUTES type),
// each with where it is documented and who reads it.
const EXTRA = {
  // RFC 6749 5.1 and OpenID Connect Core 3.1.3.3: connected apps' authorization_code and
  // refresh_token grants answer the granted scope, a refresh token under offline_access and an ID
  // token under openid (api-reference, connected apps); OAuth client libraries read them.
  'POST /v1/public/{project_id}/oauth2/token': `{ scope: string; refresh_token: string; id_token: string }`,
  // README, Trusted auth tokens: an attested token is a primary login, so the organization's MFA and
  // auth-method policies can answer with an IST ("a deliberate difference from Stytch's declared
  // answer type, which has no IST fields"); the SDK face's entry has the same addition.
  'POST /v1/b2b/sessions/attest': `{ member_authenticated: boolean; intermediate_session_token: string;
    mfa_required: { member_options: { mfa_phone_number: string; totp_registration_id: string };
      secondary_auth_initiated: string | null } | null;
    primary_required: { allowed_auth_methods: string[] } | null }`,
  // README, sessions/migrate: "The login goes through the usual completion (MFA applies)", so the
  // answer may be an IST as for attest.
  'POST /v1/b2b/sessions/migrate': `{ member_authenticated: boolean; intermediate_session_token: string;
    mfa_required: { member_options: { mfa_phone_number: string; totp_registration_id: string };
      secondary_auth_initiated: string | null } | null;
    primary_required: { allowed_auth_methods: string[] } | null }`,
};

// Every Stytch-API answer's top level (a type declaring status_code; not the OAuth token answer): the
// README's "Backend face" promises flat JSON with request_id and status_code, and the Node client
// declares both on every such type but B2BOrganizationsGetConnectedAppResponse and
// B2BSCIMConnectionGetGroupsResponse (status_code only).
const COMMON = { fields: { request_id: true, status_code: true }, required: [] };

// Latchkey's deliberate additions to a type the Node client declares, wherever the type appears in
// an answer, each with where it is documented and who reads it. They are facts the browser SDK's
// types (and api-reference section 3's shared types) have and the Node client's 14.2.0 types lack;
// the backend face keeps the full shapes.
const ADDED = {
  // api-reference 3, MemberSession: each factor's sequence_order (PRIMARY|SECONDARY) is how a
  // customer's server tells the login factor from an MFA step; the SDK's factor types declare it.
  AuthenticationFactor: `{ sequence_order: 'PRIMARY' | 'SECONDARY' }`,
  // api-reference 3, Member: an OAuth registration's provider tenants (Slack workspaces, HubSpot
  // portals, GitHub organizations) behind allowed_oauth_tenants; the SDK's OAuthRegistration declares them.
  OAuthRegistration: `{ provider_tenants: { tenant_id: string; tenant_name: string }[] }`,
  // api-reference 3, MemberSession: an OAuth factor names the provider tenant(s) the login came
  // through ("provider_tenant_id(s)?"), which allowed_oauth_tenants is checked against.
  ...Object.fromEntries(['Google', 'Microsoft', 'Github', 'Hubspot', 'Slack'].map((p) =>
    [`${p}OAuthFactor`, `{ provider_tenant_id: string; provider_tenant_ids: string[] }`])),
};

// Fields the Node client declares as required (no `?`) that Latchkey deliberately does not send,
// each with the reason (a feature Latchkey does not have): { TypeName: { field: reason } }. They stay
// allowed; apptest stops requiring them. Everything else the client requires, every answer carries.
const UNSENT = {};

// Backend-face routes with no entry, each with its reader and the reason: they answer in another
// protocol's format (not the Stytch JSON the Node client reads) or with no JSON at all.
const reasons = {
  scim: 'SCIM 2.0 (RFC 7643/7644) service provider, read by identity providers\' SCIM clients (Okta, Entra ID); ' +
    'its application/scim+json shapes are the RFC\'s and are checked by internal/scim\'s tests',
  redirect: 'browser redirect of an OAuth or SSO login (answers 302 or an HTML error page), read by browsers',
  metadata: 'SAML 2.0 service provider metadata (XML), read by identity providers',
  oidc: 'OAuth 2.0 / OpenID Connect provider endpoint of connected apps, read by relying parties; its JSON is the ' +
    'protocol\'s (RFC 7517, RFC 8414, OIDC Discovery, RFC 7662 and OIDC userinfo carry open claim sets), ' +
    'checked by internal/idp\'s tests',
  page: 'HTML page or redirect of the OpenID Connect logout, read by browsers',
  preflight: 'CORS preflight of a browser-called OAuth endpoint: no body',
};
const scim = (rs) => Object.fromEntries(rs.map((r) => {
  const [m, p] = r.split(' ');
  return [`${m} /v1/b2b/scim/{connection_id}/${p}`, reasons.scim];
}));
const oidc = (rs, why) => Object.fromEntries(rs.map((r) => {
  const [m, p] = r.split(' ');
  return [`${m} /v1/public/{project_id}/${p}`, why];
}));
const EXCLUDED = {
  ...scim(['GET ServiceProviderConfig', 'GET ResourceTypes', 'GET Schemas', 'GET Schemas/{id}',
    'GET Users', 'POST Users', 'GET Users/{id}', 'PUT Users/{id}', 'PATCH Users/{id}', 'DELETE Users/{id}',
    'GET Groups', 'POST Groups', 'GET Groups/{id}', 'PUT Groups/{id}', 'PATCH Groups/{id}', 'DELETE Groups/{id}',
    'GET Me', 'POST Me', 'PUT Me', 'PATCH Me', 'DELETE Me', 'POST Bulk']),
  'GET /v1/b2b/public/oauth/{provider}/start': reasons.redirect,
  'GET /v1/b2b/public/oauth/{provider}/discovery/start': reasons.redirect,
  'GET /v1/b2b/public/oauth/callback': reasons.redirect,
  'GET /v1/public/sso/start': reasons.redirect,
  'GET /v1/b2b/sso/callback/{connection_id}': reasons.redirect,
  'POST /v1/b2b/sso/callback/{connection_id}': reasons.redirect,
  'GET /v1/b2b/sso/saml/metadata/{connection_id}': reasons.metadata,
  ...oidc(['GET .well-known/jwks.json', 'GET .well-known/oauth-authorization-server',
    'GET .well-known/openid-configuration', 'POST oauth2/introspect', 'POST oauth2/revoke',
    'GET oauth2/userinfo', 'POST oauth2/userinfo'], reasons.oidc),
  ...oidc(['GET oauth2/end_session', 'POST oauth2/end_session', 'GET oauth2/logged_out'], reasons.page),
  ...oidc(['OPTIONS .well-known/jwks.json', 'OPTIONS .well-known/oauth-authorization-server',
    'OPTIONS .well-known/openid-configuration', 'OPTIONS oauth2/introspect', 'OPTIONS oauth2/revoke',
    'OPTIONS oauth2/token', 'OPTIONS oauth2/userinfo'], reasons.preflight),
};

const typeList = (t) => (Array.isArray(t) ? t : [t]);
const shapes = resolveShapes({
  typesDir: TYPES,
  names: [...new Set(Object.values(ROUTES).flatMap(typeList))],
  literals: { ...CUSTOM, ...Object.fromEntries(Object.entries(EXTRA).map(([r, l]) => [`extra ${r}`, l])) },
  unsent: Object.fromEntries(Object.entries(UNSENT).map(([t, fs]) => [t, Object.keys(fs)])),
  added: ADDED,
});
const version = JSON.parse(readFileSync(path.join(NODE, 'package.json'), 'utf8')).version;
const routes = {};
for (const [route, t] of Object.entries(ROUTES)) {
  routes[route] = { type: typeList(t).join(' | '), fields: typeList(t).map((n) => shapes.named[n]).reduce(union, true) };
}
for (const route of Object.keys(EXTRA)) routes[route].fields = extend(routes[route].fields, shapes.literal[`extra ${route}`]);
for (const route of Object.keys(CUSTOM)) routes[route] = { type: 'custom (scripts/gen-backend-wire.mjs)', fields: shapes.literal[route] };
for (const r of Object.values(routes)) if (r.fields.fields?.status_code) r.fields = extend(r.fields, COMMON);
for (const route of Object.keys(EXCLUDED)) {
  if (route in routes) throw new Error(`gen-backend-wire: ${route} is both listed and excluded`);
}
const byRoute = ([a], [b]) => a.localeCompare(b);
const doc = {
  comment: `Generated by scripts/gen-backend-wire.mjs from stytch (Node) ${version}; do not edit. Fields each backend-face answer may carry ("true": a value with no further schema) and, under "(required)", the ones each object must carry (the Node client declares them without "?"); "unsent": required fields Latchkey deliberately does not send, and why; "excluded": routes with no entry, and why.`,
  added: ADDED,
  unsent: UNSENT,
  routes: Object.fromEntries(Object.entries(routes).sort(byRoute)
    .map(([route, r]) => [route, { type: r.type, fields: toJSON(r.fields) }])),
  excluded: Object.fromEntries(Object.entries(EXCLUDED).sort(byRoute)),
};
writeFileSync(OUT, stringify(doc));
console.log(`gen-backend-wire: ${Object.keys(routes).length} routes, ${Object.keys(EXCLUDED).length} excluded -> ${path.relative(ROOT, OUT)}`);
