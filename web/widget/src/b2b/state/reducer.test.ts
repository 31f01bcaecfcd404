import { describe, expect, it } from 'vitest';
import type { AuthenticateResponseWithMFA, DiscoveredOrganization, Organization } from '../../api/types';
import { ACME, discovered, GLOBEX, loggedInResponse } from '../../test/fakeServer';
import { AuthFlowType } from '../config';
import { back, push, replace } from './navigation';
import { initialState, reducer } from './reducer';
import { ErrorType, Screen, type Action, type WidgetState } from './types';

const org = ACME as unknown as Organization;
const withOrg = (): WidgetState => reducer(initialState(AuthFlowType.Organization), { type: 'organizationResolved', organization: org });
const run = (state: WidgetState, ...actions: Action[]) => actions.reduce(reducer, state);
const auth = (overrides: Record<string, unknown>) => loggedInResponse(overrides) as unknown as AuthenticateResponseWithMFA;

describe('navigation', () => {
  it('push remembers the current screen, back pops it, replace clears history', () => {
    const s0 = initialState(AuthFlowType.Organization);
    const s1 = push(s0, Screen.EmailMethodSelection);
    const s2 = push(s1, Screen.EmailOTPEntry);
    expect(s2.screen).toBe(Screen.EmailOTPEntry);
    expect(s2.screenHistory).toEqual([Screen.Main, Screen.EmailMethodSelection]);
    expect(back(s2).screen).toBe(Screen.EmailMethodSelection);
    expect(back(back(s2))).toMatchObject({ screen: Screen.Main, screenHistory: [] });
    expect(replace(s2, Screen.LoggedIn)).toMatchObject({ screen: Screen.LoggedIn, screenHistory: [] });
  });

  it('back without history and push to the current screen are no-ops', () => {
    const s0 = initialState(AuthFlowType.Organization);
    expect(back(s0)).toBe(s0);
    expect(push(s0, Screen.Main)).toBe(s0);
  });
});

describe('organization lookup', () => {
  it('sets the organization and clears the pending flag', () => {
    const s = run(initialState(AuthFlowType.Organization), { type: 'organizationLookupStarted' });
    expect(s.pending.organization).toBe(true);
    const done = reducer(s, { type: 'organizationResolved', organization: org });
    expect(done.flowState.organization).toBe(org);
    expect(done.pending.organization).toBe(false);
  });

  it('a missing organization on Main is an Organization error without back', () => {
    const s = run(initialState(AuthFlowType.Organization), { type: 'organizationLookupStarted' }, { type: 'organizationMissing' });
    expect(s).toMatchObject({ screen: Screen.Error, error: { type: ErrorType.Organization, canGoBack: false } });
  });

  it('a missing organization waits for a token from the page address: that token decides the screen', () => {
    const landing = run(initialState(AuthFlowType.Organization), { type: 'urlTokenAuthenticating', active: true },
      { type: 'organizationLookupStarted' }, { type: 'organizationMissing' });
    expect(landing).toMatchObject({ screen: Screen.Main, error: null, pending: { organization: false, urlToken: true } });
    expect(reducer(landing, { type: 'primaryAuthSucceeded', response: auth({}) }).screen).toBe(Screen.LoggedIn);
  });

  it('a failed lookup is a Default error without back on Main, and waits for a token from the page address', () => {
    const failed = { type: 'organizationMissing', errorType: ErrorType.Default } as const;
    const s = run(initialState(AuthFlowType.Organization), { type: 'organizationLookupStarted' }, failed);
    expect(s).toMatchObject({ screen: Screen.Error, error: { type: ErrorType.Default, canGoBack: false } });
    const landing = run(initialState(AuthFlowType.Organization), { type: 'urlTokenAuthenticating', active: true },
      { type: 'organizationLookupStarted' }, failed);
    expect(landing).toMatchObject({ screen: Screen.Main, error: null, pending: { organization: false, urlToken: true } });
    const loggedIn = reducer(initialState(AuthFlowType.Organization), { type: 'primaryAuthSucceeded', response: auth({}) });
    expect(reducer(loggedIn, failed).screen).toBe(Screen.LoggedIn);
  });

  it('a missing organization is ignored once another screen is shown', () => {
    const loggedIn = reducer(initialState(AuthFlowType.Organization), { type: 'primaryAuthSucceeded', response: auth({}) });
    expect(reducer(loggedIn, { type: 'organizationMissing' }).screen).toBe(Screen.LoggedIn);
    const discovery = reducer(initialState(AuthFlowType.Discovery), { type: 'organizationMissing' });
    expect(discovery.screen).toBe(Screen.Main);
  });
});

describe('email transitions', () => {
  it('Main → Email Method Selection stores the email and allows back', () => {
    const s = reducer(withOrg(), { type: 'emailMethodSelectionRequested', email: 'ada@acme.test' });
    expect(s).toMatchObject({ screen: Screen.EmailMethodSelection, screenHistory: [Screen.Main] });
    expect(s.formState.emailState.userSuppliedEmail).toBe('ada@acme.test');
    expect(reducer(s, { type: 'back' }).screen).toBe(Screen.Main);
  });

  it('magic link sent → Email Confirmation (from Main or from the selection)', () => {
    expect(reducer(withOrg(), { type: 'magicLinkSent', email: 'a@b.co' })).toMatchObject({
      screen: Screen.EmailConfirmation,
      screenHistory: [Screen.Main],
    });
    const viaSelection = run(
      withOrg(),
      { type: 'emailMethodSelectionRequested', email: 'a@b.co' },
      { type: 'magicLinkSent', email: 'a@b.co' },
    );
    expect(viaSelection.screenHistory).toEqual([Screen.Main, Screen.EmailMethodSelection]);
    // Resending from the confirmation screen stays there without growing history.
    expect(reducer(viaSelection, { type: 'magicLinkSent', email: 'a@b.co' }).screenHistory).toHaveLength(2);
  });

  it('otp sent → Email OTP Entry with the code expiration; a resend only renews the expiration', () => {
    const s = reducer(withOrg(), { type: 'otpSent', email: 'a@b.co', codeExpiration: 1000 });
    expect(s).toMatchObject({ screen: Screen.EmailOTPEntry, formState: { otpState: { codeExpiration: 1000 } } });
    const resent = reducer(s, { type: 'otpSent', email: 'a@b.co', codeExpiration: 5000 });
    expect(resent.formState.otpState.codeExpiration).toBe(5000);
    expect(resent.screenHistory).toEqual([Screen.Main]);
  });
});

describe('after primary authentication', () => {
  it('a member session goes to Logged In, clearing history, MFA and primary state', () => {
    const s = run(withOrg(), { type: 'otpSent', email: 'a@b.co', codeExpiration: 1 }, { type: 'urlTokenAuthenticating', active: true });
    const done = reducer(s, { type: 'primaryAuthSucceeded', response: auth({}) });
    expect(done).toMatchObject({ screen: Screen.LoggedIn, screenHistory: [], primary: null, mfa: { primaryInfo: null } });
    expect(done.pending.urlToken).toBe(false);
  });

  it('primary_required returns to Main restricted to the allowed methods', () => {
    const response = auth({
      member_session: null,
      intermediate_session_token: 'ist',
      primary_required: { allowed_auth_methods: ['email_otp', 'password'] },
    });
    const s = reducer(reducer(withOrg(), { type: 'magicLinkSent', email: 'x@y.co' }), { type: 'primaryAuthSucceeded', response });
    expect(s.screen).toBe(Screen.Main);
    expect(s.screenHistory).toEqual([]);
    // The member has no password, so password is dropped.
    expect(s.primary).toEqual({ allowedAuthMethods: ['email_otp'], email: 'ada@acme.test', emailVerified: true });
  });

  it('primary_required with nothing usable is the auth-policy error without back', () => {
    const response = auth({ member_session: null, primary_required: { allowed_auth_methods: ['password'] } });
    expect(reducer(withOrg(), { type: 'primaryAuthSucceeded', response })).toMatchObject({
      screen: Screen.Error,
      error: { type: ErrorType.CannotJoinOrgDueToAuthPolicy, canGoBack: false },
    });
  });

  it('MFA required without an MFA context (or organization) is the default error', () => {
    const response = auth({
      member_session: null,
      intermediate_session_token: 'ist',
      mfa_required: { member_options: null, secondary_auth_initiated: null },
    });
    const s = reducer(withOrg(), { type: 'primaryAuthSucceeded', response });
    expect(s).toMatchObject({ screen: Screen.Error, error: { type: ErrorType.Default, canGoBack: false } });
    expect(s.mfa.primaryInfo).toBeNull();
  });
});

describe('errors', () => {
  it('an error with back returns to Main; one without back cannot be left', () => {
    const withBack = reducer(push(withOrg(), Screen.EmailOTPEntry), { type: 'errorOccurred', errorType: ErrorType.Default, canGoBack: true });
    expect(withBack).toMatchObject({ screen: Screen.Error, screenHistory: [], error: { canGoBack: true } });
    expect(reducer(withBack, { type: 'returnToMain' })).toMatchObject({ screen: Screen.Main, error: null });

    const noBack = reducer(withOrg(), { type: 'errorOccurred', errorType: ErrorType.EmailMagicLink, canGoBack: false });
    expect(reducer(noBack, { type: 'returnToMain' })).toBe(noBack);
    expect(reducer(noBack, { type: 'back' })).toBe(noBack);
  });

  it('an error clears pending spinners', () => {
    const s = run(withOrg(), { type: 'urlTokenAuthenticating', active: true }, { type: 'errorOccurred', errorType: ErrorType.AdBlockerDetected, canGoBack: false });
    expect(s.pending).toEqual({ organization: false, urlToken: false, discovery: false });
  });
});

describe('last used method', () => {
  it('is stored in state once loaded', () => {
    const s = reducer(initialState(AuthFlowType.Organization), { type: 'lastUsedMethodLoaded', method: 'github' });
    expect(s.lastUsedMethod).toBe('github');
  });
});

const d = (...args: Parameters<typeof discovered>) => discovered(...args) as unknown as DiscoveredOrganization;
const listed = (...orgs: DiscoveredOrganization[]) =>
  run(
    initialState(AuthFlowType.Discovery),
    { type: 'otpSent', email: 'ada@acme.test', codeExpiration: 1 },
    { type: 'discoveryAuthenticated', email: 'ada@acme.test', organizations: orgs },
  );

describe('discovery', () => {
  it('a discovery authenticate replaces the screen with the list and stores email and organizations', () => {
    const orgs = [d(ACME), d(GLOBEX, 'invited_member')];
    const s = run(initialState(AuthFlowType.Discovery), { type: 'urlTokenAuthenticating', active: true }, { type: 'discoveryAuthenticated', email: 'ada@acme.test', organizations: orgs });
    expect(s).toMatchObject({ screen: Screen.Discovery, screenHistory: [], pending: { urlToken: false } });
    expect(s.formState.discoveryState).toEqual({ email: 'ada@acme.test', discoveredOrganizations: orgs });
    expect(s.formState.emailState.userSuppliedEmail).toBe('ada@acme.test');
    expect(listed().screenHistory).toEqual([]);
  });

  it('create and exchange show a pending state that the outcome clears', () => {
    const pending = reducer(listed(d(ACME)), { type: 'discoveryPending', active: true });
    expect(pending.pending.discovery).toBe(true);
    expect(reducer(pending, { type: 'primaryAuthSucceeded', response: auth({}) })).toMatchObject({
      screen: Screen.LoggedIn,
      pending: { discovery: false },
    });
    expect(reducer(pending, { type: 'errorOccurred', errorType: ErrorType.OrganizationDiscoveryClaimedDomain, canGoBack: true })).toMatchObject({
      screen: Screen.Error,
      error: { type: ErrorType.OrganizationDiscoveryClaimedDomain, canGoBack: true },
      pending: { discovery: false },
    });
  });

  it('primary_required on a discovered organization shows its Main restricted, and back returns to the list', () => {
    const base = loggedInResponse().member;
    const globex = d(GLOBEX, 'active_member', {
      primary_required: { allowed_auth_methods: ['email_otp'] },
      membership: { type: 'active_member', details: null, member: { ...base, email_address: 'ada@globex.test', email_address_verified: true } },
    });
    const s = reducer(listed(d(ACME), globex), { type: 'discoveryPrimaryRequired', discovered: globex });
    expect(s).toMatchObject({ screen: Screen.Main, screenHistory: [Screen.Discovery] });
    expect(s.flowState).toEqual({ type: AuthFlowType.Discovery, organization: GLOBEX });
    expect(s.primary).toEqual({ allowedAuthMethods: ['email_otp'], email: 'ada@globex.test', emailVerified: true });
    const backAgain = reducer(s, { type: 'back' });
    expect(backAgain).toMatchObject({ screen: Screen.Discovery, primary: null, flowState: { organization: null } });
    expect(backAgain.formState.discoveryState.discoveredOrganizations).toHaveLength(2);
  });

  it('an eligible organization (no member yet) uses the discovery email', () => {
    const eligible = d(GLOBEX, 'eligible_to_join_by_email_domain', { primary_required: { allowed_auth_methods: ['magic_link'] } });
    const s = reducer(listed(eligible), { type: 'discoveryPrimaryRequired', discovered: eligible });
    expect(s.primary).toEqual({ allowedAuthMethods: ['magic_link'], email: 'ada@acme.test', emailVerified: false });
  });

  it('with no allowed method it is the auth-policy error naming the organization, with back to a fresh Main', () => {
    const blocked = d(GLOBEX, 'active_member', { primary_required: { allowed_auth_methods: [] } });
    const s = reducer(listed(blocked), { type: 'discoveryPrimaryRequired', discovered: blocked });
    expect(s).toMatchObject({ screen: Screen.Error, error: { type: ErrorType.CannotJoinOrgDueToAuthPolicy, canGoBack: true } });
    expect(s.flowState.organization).toEqual(GLOBEX);
    const main = reducer(s, { type: 'returnToMain' });
    expect(main).toMatchObject({ screen: Screen.Main, error: null, primary: null, flowState: { type: AuthFlowType.Discovery, organization: null } });
  });

  it('returning to Main in the Organization flow keeps the organization', () => {
    const s = reducer(push(withOrg(), Screen.EmailOTPEntry), { type: 'errorOccurred', errorType: ErrorType.Default, canGoBack: true });
    expect(reducer(s, { type: 'returnToMain' }).flowState.organization).toBe(org);
  });

  it('back between other screens leaves the organization alone', () => {
    const s = run(withOrg(), { type: 'otpSent', email: 'a@b.co', codeExpiration: 1 }, { type: 'back' });
    expect(s).toMatchObject({ screen: Screen.Main, flowState: { organization: org } });
  });
});

describe('SSO discovery', () => {
  const okta = { connection_id: 'saml-connection-test-okta', display_name: 'Okta', identity_provider: 'okta' };
  const entra = { connection_id: 'oidc-connection-test-entra', display_name: 'Entra', identity_provider: 'microsoft-entra' };
  const started = () => run(initialState(AuthFlowType.Discovery), { type: 'ssoDiscoveryStarted' });
  const found = (connections: (typeof okta)[]) =>
    run(started(), { type: 'ssoDiscoveryConnectionsFound', email: 'ada@acme.test', connections });

  it('starts on the email screen, with Main to go back to', () => {
    expect(started()).toMatchObject({ screen: Screen.SSODiscoveryEmail, screenHistory: [Screen.Main] });
  });

  it('no connection goes to the fallback, several to the menu, one stays while SSO starts', () => {
    expect(found([])).toMatchObject({
      screen: Screen.SSODiscoveryFallback,
      formState: { emailState: { userSuppliedEmail: 'ada@acme.test' }, ssoDiscoveryState: { connections: [] } },
    });
    expect(found([okta, entra])).toMatchObject({
      screen: Screen.SSODiscoveryMenu,
      screenHistory: [Screen.Main, Screen.SSODiscoveryEmail],
      formState: { ssoDiscoveryState: { connections: [okta, entra] } },
    });
    expect(found([okta])).toMatchObject({ screen: Screen.SSODiscoveryEmail, formState: { ssoDiscoveryState: { connections: [okta] } } });
  });

  it('an organization found by slug shows its Main; back to the fallback forgets it', () => {
    const main = run(found([]), { type: 'ssoDiscoveryOrganizationFound', organization: org });
    expect(main).toMatchObject({ screen: Screen.Main, flowState: { type: AuthFlowType.Discovery, organization: org }, primary: null });
    expect(run(main, { type: 'back' })).toMatchObject({ screen: Screen.SSODiscoveryFallback, flowState: { organization: null } });
    expect(run(main, { type: 'returnToMain' })).toMatchObject({ screen: Screen.Main, screenHistory: [], flowState: { organization: null } });
  });
});
