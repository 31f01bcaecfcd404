/** The password transitions of the reducer (spec section 4). Pure, like the rest of it. */
import { AuthFlowType } from '../config';
import { push, replace } from './navigation';
import type { PasswordAction, PasswordFormState, PasswordStrength } from './passwordTypes';
import { Screen, type WidgetState } from './types';

export const NO_STRENGTH: PasswordStrength = Object.freeze({ password: '', status: 'idle', result: null }) as PasswordStrength;

export function initialPasswordState(): PasswordFormState {
  return { email: '', strength: NO_STRENGTH };
}

/**
 * Where a completed primary login lands: the reset form when the reset page has just logged the
 * member in by magic link (the password is then set with that session), otherwise Logged In.
 */
export function postAuthScreen(state: WidgetState): Screen {
  return state.passwordReset?.tokenType === 'multi_tenant_magic_links' ? Screen.PasswordResetForm : Screen.LoggedIn;
}

/** Whether the password being typed is the one the server last judged valid. */
export function isPasswordAccepted(strength: PasswordStrength, password: string): boolean {
  return strength.status === 'checked' && strength.password === password && Boolean(strength.result?.valid_password);
}

function withPasswordEmail(state: WidgetState, email: string): WidgetState {
  const { formState } = state;
  return {
    ...state,
    formState: { ...formState, emailState: { userSuppliedEmail: email }, passwordState: { ...formState.passwordState, email } },
  };
}

function withStrength(state: WidgetState, strength: PasswordStrength): WidgetState {
  const { formState } = state;
  return { ...state, formState: { ...formState, passwordState: { ...formState.passwordState, strength } } };
}

export function passwordReducer(state: WidgetState, action: PasswordAction): WidgetState {
  const strength = state.formState.passwordState.strength;
  switch (action.type) {
    case 'passwordEmailRequested':
      return withPasswordEmail(push(state, Screen.PasswordEmail), action.email);
    case 'passwordAuthenticateRequested':
      return withPasswordEmail(push(state, Screen.PasswordAuthenticate), action.email);
    case 'passwordForgotRequested':
      return withPasswordEmail(push(state, Screen.PasswordForgotForm), action.email);
    case 'passwordResetLinkSent':
      return withPasswordEmail(push(state, Screen.PasswordSetNewConfirmation), action.email);
    case 'passwordVerifyLinkSent':
      return withPasswordEmail(push(state, Screen.PasswordResetVerifyConfirmation), action.email);
    case 'passwordResetEntered':
      // A fresh start: nothing of an earlier screen applies to the reset.
      return withStrength(
        {
          ...replace(state, Screen.PasswordResetForm),
          flowState: { ...state.flowState, type: AuthFlowType.PasswordReset },
          passwordReset: { tokenType: action.tokenType },
          error: null,
        },
        NO_STRENGTH,
      );
    case 'passwordResetCompleted':
      return withStrength(
        { ...state, flowState: { ...state.flowState, type: action.flow }, passwordReset: null },
        NO_STRENGTH,
      );
    case 'passwordStrengthChecking':
      // The last verdict stays on screen (no flicker) but belongs to another password now.
      return withStrength(state, { password: action.password, status: 'checking', result: strength.result });
    case 'passwordStrengthChecked':
      // An answer for a password the member has since changed is dropped.
      if (strength.password !== action.password) return state;
      return withStrength(state, { password: action.password, status: 'checked', result: action.result });
    case 'passwordStrengthFailed':
      if (strength.password !== action.password) return state;
      return withStrength(state, { password: action.password, status: 'failed', result: null });
    case 'passwordStrengthCleared':
      return strength === NO_STRENGTH ? state : withStrength(state, NO_STRENGTH);
    default: {
      const never: never = action;
      throw new Error(`unknown password action ${JSON.stringify(never)}`);
    }
  }
}
