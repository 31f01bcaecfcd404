import { useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { Heading } from '../../ui/Heading';
import { useLogin } from '../context';
import { isValidEmail } from '../email';
import { useAsyncAction } from '../useAsyncAction';
import { BackButton } from './BackButton';
import { EmailField } from './EmailField';
import { LastUsed } from './LastUsed';

/**
 * The email step of the password flow. In an organization the member lookup that follows leads a
 * member to the password and anyone else to the verification link; in discovery, to the password.
 */
export function PasswordEmailForm({ lastUsed = false }: { lastUsed?: boolean }) {
  const { state, controller, t } = useLogin();
  const [email, setEmail] = useState(state.formState.passwordState.email || state.formState.emailState.userSuppliedEmail);
  const submit = useAsyncAction((value: string) => controller.passwords.submitEmail(value));

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    // Spec section 5: checked before the member lookup.
    if (!isValidEmail(email)) {
      submit.setError(t('email.invalid'));
      return;
    }
    void submit.run(email);
  };

  return (
    <form className="lk-form" onSubmit={onSubmit} noValidate>
      <EmailField value={email} onChange={setEmail} error={submit.error} />
      <LastUsed active={lastUsed}>
        {(describedBy) => (
          <Button type="submit" loading={submit.busy} aria-describedby={describedBy}>
            {t('password.continue')}
          </Button>
        )}
      </LastUsed>
    </form>
  );
}

/**
 * Password Email: the email step on its own screen. The spec lists it, but 'Use a password instead'
 * goes straight to Password Authenticate (spec section 4), so no transition of the widget
 * leads here; Main's password form shows the same step in place.
 */
export function PasswordEmailScreen() {
  const { t } = useLogin();
  return (
    <>
      <Heading>{t('password.email.title')}</Heading>
      <p className="lk-text">{t('password.email.body')}</p>
      <PasswordEmailForm />
      <BackButton />
    </>
  );
}
