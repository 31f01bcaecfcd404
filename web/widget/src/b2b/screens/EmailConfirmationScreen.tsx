import { useState } from 'react';
import { ErrorText } from '../../ui/ErrorText';
import { Heading } from '../../ui/Heading';
import { ResendButton } from '../../ui/ResendButton';
import { useLogin } from '../context';
import { BackButton } from './BackButton';

/** After a magic link was sent: where to look, and a way to send it again. */
export function EmailConfirmationScreen() {
  const { state, controller, t, clock } = useLogin();
  const [error, setError] = useState<string | null>(null);
  const email = state.formState.emailState.userSuppliedEmail;
  const resend = async () => {
    setError(null);
    const result = await controller.resendMagicLink();
    if (!result.ok) setError(result.message);
    return result;
  };
  return (
    <>
      <Heading>{t('emailConfirmation.title')}</Heading>
      <p className="lk-text">{t('emailConfirmation.body', { email })}</p>
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
