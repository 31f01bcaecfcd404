/** The password part of the widget state and its actions (spec sections 3 and 4; api-reference 3.3). */
import type { StrengthCheckResponse } from '../../api/passwords';
import type { AuthFlowType } from '../config';

/**
 * How the reset page sets the password: with an emailed reset token (organization or discovery),
 * or with the session of a member just logged in by magic link, or of one already logged in.
 */
export type ResetTokenType = 'multi_tenant_passwords' | 'discovery' | 'multi_tenant_magic_links' | 'session';

/** The server's verdict on the password being typed, and which password it belongs to. */
export interface PasswordStrength {
  password: string;
  status: 'idle' | 'checking' | 'checked' | 'failed';
  result: StrengthCheckResponse | null;
}

export interface PasswordFormState {
  email: string;
  strength: PasswordStrength;
}

export type PasswordAction =
  /** The email step on its own screen (the member lookup decides what follows); unused, see PasswordEmailScreen. */
  | { type: 'passwordEmailRequested'; email: string }
  | { type: 'passwordAuthenticateRequested'; email: string }
  | { type: 'passwordForgotRequested'; email: string }
  /** A reset link went to a member (or, in discovery, to the address). */
  | { type: 'passwordResetLinkSent'; email: string }
  /** A non-member the organization admits got a link that verifies the address first. */
  | { type: 'passwordVerifyLinkSent'; email: string }
  /** The page was opened to reset a password (redirect type reset_password, or the PasswordReset flow). */
  | { type: 'passwordResetEntered'; tokenType: ResetTokenType }
  /** The new password is set; the login continues in `flow`. */
  | { type: 'passwordResetCompleted'; flow: AuthFlowType }
  | { type: 'passwordStrengthChecking'; password: string }
  | { type: 'passwordStrengthChecked'; password: string; result: StrengthCheckResponse }
  | { type: 'passwordStrengthFailed'; password: string }
  | { type: 'passwordStrengthCleared' };
