import type { AuthenticateResponseWithMFA, DiscoveredOrganization } from '../../api/types';
import { AuthFlowType } from '../config';
import { enterMfa, initialMfaState, isMfaAction, mfaReducer } from './mfa';
import { back, push, replace } from './navigation';
import { initialPasswordState, passwordReducer, postAuthScreen } from './passwordReducer';
import { ErrorType, Screen, type Action, type MfaContext, type WidgetState } from './types';

export function initialState(flow: AuthFlowType): WidgetState {
  return {
    // A page mounted for password resets opens on the reset form (spec section 2).
    screen: flow === AuthFlowType.PasswordReset ? Screen.PasswordResetForm : Screen.Main,
    screenHistory: [],
    formState: {
      emailState: { userSuppliedEmail: '' },
      otpState: { codeExpiration: null },
      discoveryState: { email: '', discoveredOrganizations: [] },
      passwordState: initialPasswordState(),
      ssoDiscoveryState: { connections: [] },
    },
    flowState: { type: flow, organization: null },
    mfa: initialMfaState(),
    primary: null,
    error: null,
    pending: NOTHING_PENDING,
    lastUsedMethod: null,
    passwordReset: null,
  };
}

/** Discovery screens where no organization is chosen yet. */
const CHOOSING_ORGANIZATION: ReadonlySet<Screen> = new Set([Screen.Discovery, Screen.SSODiscoveryFallback]);

const NOTHING_PENDING: WidgetState['pending'] = Object.freeze({ organization: false, urlToken: false, discovery: false });

function toError(state: WidgetState, type: ErrorType, canGoBack: boolean): WidgetState {
  return {
    ...replace(state, Screen.Error),
    error: { type, canGoBack },
    pending: NOTHING_PENDING,
  };
}

/** Spec section 4, "After primary authentication success". */
function afterPrimaryAuth(state: WidgetState, resp: AuthenticateResponseWithMFA, mfa?: MfaContext): WidgetState {
  const base: WidgetState = { ...state, pending: { ...state.pending, urlToken: false, discovery: false }, error: null };
  if (resp.member_session) {
    return { ...replace(base, postAuthScreen(state)), mfa: initialMfaState(), primary: null };
  }
  const organization = resp.organization ?? state.flowState.organization;
  const flowState = { ...state.flowState, organization };
  if (resp.primary_required) {
    // A member without a password cannot satisfy a password requirement.
    const allowed = resp.primary_required.allowed_auth_methods.filter(
      (m) => m !== 'password' || Boolean(resp.member?.member_password_id),
    );
    if (allowed.length === 0) return toError({ ...base, flowState }, ErrorType.CannotJoinOrgDueToAuthPolicy, false);
    const email = resp.member?.email_address ?? state.formState.emailState.userSuppliedEmail;
    return {
      ...replace(base, Screen.Main),
      flowState,
      primary: { allowedAuthMethods: allowed, email, emailVerified: Boolean(resp.member?.email_address_verified) },
      formState: { ...state.formState, emailState: { userSuppliedEmail: email } },
    };
  }
  // Steps 3 and 4: multi-factor authentication (state/mfa.ts). The intermediate session is kept.
  const entered =
    organization && mfa ? enterMfa({ ...base, flowState }, resp, organization, mfa, postAuthScreen(state)) : null;
  return entered ?? toError({ ...base, flowState, mfa: initialMfaState() }, ErrorType.Default, false);
}

/** The widget's only state transition function. Pure: no I/O, no clock. */
export function reducer(state: WidgetState, action: Action): WidgetState {
  if (isMfaAction(action)) return mfaReducer(state, action);
  switch (action.type) {
    case 'organizationLookupStarted':
      return { ...state, pending: { ...state.pending, organization: true } };
    case 'organizationResolved':
      return {
        ...state,
        flowState: { ...state.flowState, organization: action.organization },
        pending: { ...state.pending, organization: false },
      };
    case 'organizationMissing': {
      const settled = { ...state, pending: { ...state.pending, organization: false } };
      // A token from the page address is still being redeemed: its answer decides the screen
      // (spec section 4, "no pending result"), e.g. an impersonation link on a page without a slug.
      const applies =
        !state.pending.urlToken &&
        state.screen === Screen.Main &&
        state.flowState.type === AuthFlowType.Organization &&
        state.flowState.organization === null;
      return applies ? toError(settled, action.errorType ?? ErrorType.Organization, false) : settled;
    }
    case 'emailMethodSelectionRequested':
      return withEmail(push(state, Screen.EmailMethodSelection), action.email);
    case 'magicLinkSent':
      return withEmail(push(state, Screen.EmailConfirmation), action.email);
    case 'otpSent': {
      const next = withEmail(push(state, Screen.EmailOTPEntry), action.email);
      return { ...next, formState: { ...next.formState, otpState: { codeExpiration: action.codeExpiration } } };
    }
    case 'urlTokenAuthenticating':
      return { ...state, pending: { ...state.pending, urlToken: action.active } };
    case 'primaryAuthSucceeded':
      return afterPrimaryAuth(state, action.response, action.mfa);
    case 'lastUsedMethodLoaded':
      return { ...state, lastUsedMethod: action.method };
    case 'discoveryAuthenticated': {
      // Replaces the screen: the emailed link or code that led here cannot be used again.
      const next = withoutOrganizationChoice(replace(withEmail(state, action.email), Screen.Discovery));
      return {
        ...next,
        formState: {
          ...next.formState,
          discoveryState: { email: action.email, discoveredOrganizations: action.organizations },
        },
        pending: { ...state.pending, urlToken: false },
        error: null,
      };
    }
    case 'discoveryPending':
      return { ...state, pending: { ...state.pending, discovery: action.active } };
    case 'discoveryPrimaryRequired':
      return discoveryPrimaryRequired(state, action.discovered);
    case 'ssoDiscoveryStarted':
      return push(state, Screen.SSODiscoveryEmail);
    case 'ssoDiscoveryConnectionsFound': {
      const { connections } = action;
      const found = withEmail(
        { ...state, formState: { ...state.formState, ssoDiscoveryState: { connections } } },
        action.email,
      );
      // A single connection starts at once (api-reference 3.6): the screen stays until the page leaves.
      if (connections.length === 1) return found;
      return push(found, connections.length === 0 ? Screen.SSODiscoveryFallback : Screen.SSODiscoveryMenu);
    }
    case 'ssoDiscoveryOrganizationFound':
      return {
        ...push(state, Screen.Main),
        flowState: { ...state.flowState, organization: action.organization },
        primary: null,
      };
    case 'errorOccurred':
      return toError(state, action.errorType, action.canGoBack);
    case 'back': {
      const previous = back(state);
      // Back from an organization's Main to the list or the slug entry forgets that organization.
      return CHOOSING_ORGANIZATION.has(previous.screen) && !CHOOSING_ORGANIZATION.has(state.screen)
        ? withoutOrganizationChoice(previous)
        : previous;
    }
    case 'returnToMain': {
      if (state.screen === Screen.Error && !state.error?.canGoBack) return state;
      const main: WidgetState = { ...replace(state, Screen.Main), error: null, pending: NOTHING_PENDING };
      // Discovery starts over: no organization was chosen yet.
      return state.flowState.type === AuthFlowType.Discovery ? withoutOrganizationChoice(main) : main;
    }
    // Passwords (issue 4): the transitions live in passwordReducer.ts.
    case 'passwordEmailRequested':
    case 'passwordAuthenticateRequested':
    case 'passwordForgotRequested':
    case 'passwordResetLinkSent':
    case 'passwordVerifyLinkSent':
    case 'passwordResetEntered':
    case 'passwordResetCompleted':
    case 'passwordStrengthChecking':
    case 'passwordStrengthChecked':
    case 'passwordStrengthFailed':
    case 'passwordStrengthCleared':
      return passwordReducer(state, action);
    default: {
      const never: never = action;
      throw new Error(`unknown action ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Spec section 4, selecting an organization that needs another primary method: the organization,
 * email and allowed methods are stored and Main is shown restricted (back returns to the list);
 * with no allowed method, the auth-policy error, from which the member may go back.
 */
function discoveryPrimaryRequired(state: WidgetState, discovered: DiscoveredOrganization): WidgetState {
  const allowed = discovered.primary_required?.allowed_auth_methods ?? [];
  const flowState = { ...state.flowState, organization: discovered.organization };
  if (allowed.length === 0) {
    return toError({ ...state, flowState }, ErrorType.CannotJoinOrgDueToAuthPolicy, true);
  }
  const member = discovered.membership.member;
  const email = member?.email_address || state.formState.discoveryState.email;
  return {
    ...withEmail(push(state, Screen.Main), email),
    flowState,
    primary: { allowedAuthMethods: allowed, email, emailVerified: Boolean(member?.email_address_verified) },
    pending: NOTHING_PENDING,
    error: null,
  };
}

function withoutOrganizationChoice(state: WidgetState): WidgetState {
  return { ...state, flowState: { ...state.flowState, organization: null }, primary: null };
}

function withEmail(state: WidgetState, email: string): WidgetState {
  return { ...state, formState: { ...state.formState, emailState: { userSuppliedEmail: email } } };
}
