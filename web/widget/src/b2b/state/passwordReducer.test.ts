import { describe, expect, it } from 'vitest';
import type { StrengthCheckResponse } from '../../api/passwords';
import type { AuthenticateResponseWithMFA, Organization } from '../../api/types';
import { ACME, loggedInResponse } from '../../test/fakeServer';
import { AuthFlowType } from '../config';
import { isPasswordAccepted, NO_STRENGTH } from './passwordReducer';
import { initialState, reducer } from './reducer';
import { Screen, type Action, type WidgetState } from './types';

const org = ACME as unknown as Organization;
const withOrg = (): WidgetState => reducer(initialState(AuthFlowType.Organization), { type: 'organizationResolved', organization: org });
const run = (state: WidgetState, ...actions: Action[]) => actions.reduce(reducer, state);
const auth = (overrides: Record<string, unknown> = {}) => loggedInResponse(overrides) as unknown as AuthenticateResponseWithMFA;

function verdict(valid: boolean, score = valid ? 4 : 1): StrengthCheckResponse {
  return {
    request_id: 'r',
    status_code: 200,
    valid_password: valid,
    score,
    breached_password: false,
    strength_policy: 'zxcvbn',
    zxcvbn_feedback: { warning: '', suggestions: [] },
    luds_feedback: { has_lower_case: true, has_upper_case: false, has_digit: false, has_symbol: false, missing_complexity: 0, missing_characters: 0 },
  };
}

describe('password screens', () => {
  it.each([
    ['passwordEmailRequested', Screen.PasswordEmail],
    ['passwordAuthenticateRequested', Screen.PasswordAuthenticate],
    ['passwordForgotRequested', Screen.PasswordForgotForm],
    ['passwordResetLinkSent', Screen.PasswordSetNewConfirmation],
    ['passwordVerifyLinkSent', Screen.PasswordResetVerifyConfirmation],
  ] as const)('%s pushes %s, stores the email for every screen, and back returns to Main', (type, screen) => {
    const s = reducer(withOrg(), { type, email: 'ada@acme.test' });
    expect(s).toMatchObject({ screen, screenHistory: [Screen.Main] });
    expect(s.formState.passwordState.email).toBe('ada@acme.test');
    expect(s.formState.emailState.userSuppliedEmail).toBe('ada@acme.test');
    expect(reducer(s, { type: 'back' }).screen).toBe(Screen.Main);
  });

  it('Main → Password Authenticate → Forgot → Set New Confirmation keeps the way back', () => {
    const s = run(
      withOrg(),
      { type: 'passwordAuthenticateRequested', email: 'ada@acme.test' },
      { type: 'passwordForgotRequested', email: 'ada@acme.test' },
      { type: 'passwordResetLinkSent', email: 'ada@acme.test' },
    );
    expect(s.screenHistory).toEqual([Screen.Main, Screen.PasswordAuthenticate, Screen.PasswordForgotForm]);
    // A resend reports the same screen again: nothing is pushed twice.
    expect(reducer(s, { type: 'passwordResetLinkSent', email: 'ada@acme.test' }).screenHistory).toEqual(s.screenHistory);
  });

  it('a primary login after a password screen still lands on Logged In', () => {
    const s = run(withOrg(), { type: 'passwordAuthenticateRequested', email: 'ada@acme.test' }, { type: 'primaryAuthSucceeded', response: auth() });
    expect(s).toMatchObject({ screen: Screen.LoggedIn, screenHistory: [] });
  });
});

describe('password reset page', () => {
  it('a PasswordReset page opens on the reset form', () => {
    expect(initialState(AuthFlowType.PasswordReset).screen).toBe(Screen.PasswordResetForm);
    expect(initialState(AuthFlowType.Organization).screen).toBe(Screen.Main);
  });

  it('entering a reset switches the flow to PasswordReset, clears history and remembers how to reset', () => {
    const s = run(withOrg(), { type: 'passwordAuthenticateRequested', email: 'a@acme.test' }, { type: 'passwordResetEntered', tokenType: 'multi_tenant_passwords' });
    expect(s).toMatchObject({
      screen: Screen.PasswordResetForm,
      screenHistory: [],
      flowState: { type: AuthFlowType.PasswordReset },
      passwordReset: { tokenType: 'multi_tenant_passwords' },
      error: null,
    });
  });

  it('a magic-link reset logs in to the reset form, not to Logged In; MFA returns there too', () => {
    const entered = reducer(initialState(AuthFlowType.Organization), { type: 'passwordResetEntered', tokenType: 'multi_tenant_magic_links' });
    const loggedIn = reducer(entered, { type: 'primaryAuthSucceeded', response: auth() });
    expect(loggedIn).toMatchObject({ screen: Screen.PasswordResetForm, screenHistory: [] });
    const mfa = reducer(entered, {
      type: 'primaryAuthSucceeded',
      response: auth({ member_session: null, intermediate_session_token: 'ist', mfa_required: { member_options: null, secondary_auth_initiated: null } }),
      mfa: { now: 0, productOrder: [], productInclude: null },
    });
    expect(mfa.mfa.primaryInfo?.postAuthScreen).toBe(Screen.PasswordResetForm);
    expect(reducer(mfa, { type: 'mfaAuthenticated', method: 'sms_otp' }).screen).toBe(Screen.PasswordResetForm);
  });

  it('other resets, and a magic-link reset once completed, end on Logged In', () => {
    const email = reducer(initialState(AuthFlowType.Organization), { type: 'passwordResetEntered', tokenType: 'multi_tenant_passwords' });
    expect(reducer(email, { type: 'primaryAuthSucceeded', response: auth() }).screen).toBe(Screen.LoggedIn);
    const done = run(
      initialState(AuthFlowType.Organization),
      { type: 'passwordResetEntered', tokenType: 'multi_tenant_magic_links' },
      { type: 'primaryAuthSucceeded', response: auth() },
      { type: 'passwordResetCompleted', flow: AuthFlowType.Organization },
      { type: 'primaryAuthSucceeded', response: auth() },
    );
    expect(done).toMatchObject({ screen: Screen.LoggedIn, passwordReset: null, flowState: { type: AuthFlowType.Organization } });
  });

  it('a completed discovery reset continues in the Discovery flow', () => {
    const s = run(
      initialState(AuthFlowType.Organization),
      { type: 'passwordResetEntered', tokenType: 'discovery' },
      { type: 'passwordResetCompleted', flow: AuthFlowType.Discovery },
    );
    expect(s.flowState.type).toBe(AuthFlowType.Discovery);
    expect(s.passwordReset).toBeNull();
  });
});

describe('strength verdict', () => {
  const start = () => reducer(initialState(AuthFlowType.PasswordReset), { type: 'passwordResetEntered', tokenType: 'session' });

  it('checking → checked accepts exactly that password', () => {
    const s = run(start(), { type: 'passwordStrengthChecking', password: 'correct horse' }, { type: 'passwordStrengthChecked', password: 'correct horse', result: verdict(true) });
    expect(s.formState.passwordState.strength).toMatchObject({ password: 'correct horse', status: 'checked' });
    expect(isPasswordAccepted(s.formState.passwordState.strength, 'correct horse')).toBe(true);
    expect(isPasswordAccepted(s.formState.passwordState.strength, 'correct horse!')).toBe(false);
  });

  it('an invalid verdict, a pending check and a failed check do not accept', () => {
    const invalid = run(start(), { type: 'passwordStrengthChecking', password: 'abc' }, { type: 'passwordStrengthChecked', password: 'abc', result: verdict(false) });
    expect(isPasswordAccepted(invalid.formState.passwordState.strength, 'abc')).toBe(false);
    const checking = reducer(invalid, { type: 'passwordStrengthChecking', password: 'abcd' });
    // The last verdict stays visible while the next one is on its way.
    expect(checking.formState.passwordState.strength).toMatchObject({ password: 'abcd', status: 'checking', result: { score: 1 } });
    expect(isPasswordAccepted(checking.formState.passwordState.strength, 'abcd')).toBe(false);
    const failed = reducer(checking, { type: 'passwordStrengthFailed', password: 'abcd' });
    expect(failed.formState.passwordState.strength).toMatchObject({ status: 'failed', result: null });
  });

  it('drops answers for a password that has since changed', () => {
    const s = run(start(), { type: 'passwordStrengthChecking', password: 'new' });
    expect(reducer(s, { type: 'passwordStrengthChecked', password: 'old', result: verdict(true) })).toBe(s);
    expect(reducer(s, { type: 'passwordStrengthFailed', password: 'old' })).toBe(s);
  });

  it('clearing empties the verdict (a no-op when already empty), and so does entering or completing a reset', () => {
    const checked = run(start(), { type: 'passwordStrengthChecking', password: 'p' }, { type: 'passwordStrengthChecked', password: 'p', result: verdict(true) });
    expect(reducer(checked, { type: 'passwordStrengthCleared' }).formState.passwordState.strength).toBe(NO_STRENGTH);
    const empty = start();
    expect(reducer(empty, { type: 'passwordStrengthCleared' })).toBe(empty);
    expect(reducer(checked, { type: 'passwordResetCompleted', flow: AuthFlowType.Organization }).formState.passwordState.strength).toBe(NO_STRENGTH);
    expect(reducer(checked, { type: 'passwordResetEntered', tokenType: 'session' }).formState.passwordState.strength).toBe(NO_STRENGTH);
  });
});
