import { useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { Heading } from '../../ui/Heading';
import { PasswordInput } from '../../ui/PasswordInput';
import { useLogin } from '../context';
import { isValidEmail } from '../email';
import { useAsyncAction } from '../useAsyncAction';
import { BackButton } from './BackButton';
import { EmailField } from './EmailField';

/**
 * Password Authenticate (spec section 2): email, password with a show/hide toggle, Continue, and
 * 'Sign up or reset password'. Logs in to the organization, or in discovery lists the email's
 * organizations.
 */
export function PasswordAuthenticateScreen() {
  const { state, controller, t } = useLogin();
  const [email, setEmail] = useState(state.formState.passwordState.email);
  const [password, setPassword] = useState('');
  const [emailError, setEmailError] = useState<string | null>(null);
  const login = useAsyncAction(() => controller.passwords.authenticate(email, password));

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!isValidEmail(email)) {
      setEmailError(t('email.invalid'));
      return;
    }
    setEmailError(null);
    void login.run();
  };

  return (
    <>
      <Heading>{t('password.authenticate.title')}</Heading>
      <form className="lk-form" onSubmit={onSubmit} noValidate>
        <EmailField value={email} onChange={setEmail} error={emailError} />
        <PasswordInput
          id="password-input"
          label={t('password.label')}
          value={password}
          onValueChange={setPassword}
          showLabel={t('password.show')}
          hideLabel={t('password.hide')}
          autoComplete="current-password"
          error={login.error}
        />
        {/* Not disabled while the password is empty (the spec asks that only when setting one): a
            disabled submit blocks Enter in the fields and leaves the Tab order, so the required-password
            message of the controller would never show. */}
        <Button type="submit" loading={login.busy}>
          {t('password.continue')}
        </Button>
      </form>
      <Button variant="text" onClick={() => controller.passwords.openForgot(email)}>
        {t('password.signUpOrReset')}
      </Button>
      <BackButton />
    </>
  );
}
