import { useState } from 'react';
import type { StringKey } from '../../strings/en';
import { ErrorText } from '../../ui/ErrorText';
import { Heading } from '../../ui/Heading';
import { ResendButton } from '../../ui/ResendButton';
import { useLogin } from '../context';
import { BackButton } from './BackButton';

/** "Check your email" after a password link was sent, with a way to send it again. */
function LinkSent({ title, body }: { title: StringKey; body: StringKey }) {
  const { state, controller, t, clock } = useLogin();
  const [error, setError] = useState<string | null>(null);
  const email = state.formState.passwordState.email;
  const resend = async () => {
    setError(null);
    // The same request again: a reset link for a member, the verification link for a new one.
    const result = await controller.passwords.forgot(email);
    if (!result.ok) setError(result.message);
    return result;
  };
  return (
    <>
      <Heading>{t(title)}</Heading>
      <p className="lk-text">{t(body, { email })}</p>
      <div className="lk-row">
        <span className="lk-text lk-text--muted">{t('emailConfirmation.resendPrompt')}</span>
        <ResendButton
          clock={clock}
          onResend={resend}
          labels={{
            idle: t('emailConfirmation.resend'),
            sending: t('emailConfirmation.resending'),
            sent: t('emailConfirmation.resent'),
          }}
        />
      </div>
      <ErrorText message={error} />
      <BackButton />
    </>
  );
}

/** Password Set New Confirmation: a link to create a new password is on its way. */
export function PasswordSetNewConfirmationScreen() {
  return <LinkSent title="password.setNew.title" body="password.setNew.body" />;
}

/** Password Reset Verify Confirmation: a new member verifies the address before creating a password. */
export function PasswordResetVerifyConfirmationScreen() {
  return <LinkSent title="password.verify.title" body="password.verify.body" />;
}
