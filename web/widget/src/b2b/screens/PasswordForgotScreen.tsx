import { useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { Heading } from '../../ui/Heading';
import { useLogin } from '../context';
import { isValidEmail } from '../email';
import { useAsyncAction } from '../useAsyncAction';
import { BackButton } from './BackButton';
import { EmailField } from './EmailField';

/** Password Forgot Form: the email to send a link to for creating or resetting the password. */
export function PasswordForgotScreen() {
  const { state, controller, t } = useLogin();
  const [email, setEmail] = useState(state.formState.passwordState.email);
  const send = useAsyncAction((value: string) => controller.passwords.forgot(value));

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!isValidEmail(email)) {
      send.setError(t('email.invalid'));
      return;
    }
    void send.run(email);
  };

  return (
    <>
      <Heading>{t('password.forgot.title')}</Heading>
      <p className="lk-text">{t('password.forgot.body')}</p>
      <form className="lk-form" onSubmit={onSubmit} noValidate>
        <EmailField value={email} onChange={setEmail} error={send.error} />
        <Button type="submit" loading={send.busy}>
          {t('password.continue')}
        </Button>
      </form>
      <BackButton />
    </>
  );
}
