import type { StringKey } from '../../strings/en';
import { useLogin } from '../context';
import { LinkSentView } from './LinkSentView';

/** "Check your email" after a password link was sent, with a way to send it again. */
function LinkSent({ title, body }: { title: StringKey; body: StringKey }) {
  const { state, controller } = useLogin();
  const email = state.formState.passwordState.email;
  // The same request again: a reset link for a member, the verification link for a new one.
  return <LinkSentView title={title} body={body} email={email} resend={() => controller.passwords.forgot(email)} />;
}

/** Password Set New Confirmation: a link to create a new password is on its way. */
export function PasswordSetNewConfirmationScreen() {
  return <LinkSent title="password.setNew.title" body="password.setNew.body" />;
}

/** Password Reset Verify Confirmation: a new member verifies the address before creating a password. */
export function PasswordResetVerifyConfirmationScreen() {
  return <LinkSent title="password.verify.title" body="password.verify.body" />;
}
