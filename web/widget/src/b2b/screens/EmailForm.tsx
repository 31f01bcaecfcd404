import { useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { ErrorText } from '../../ui/ErrorText';
import { Input } from '../../ui/Input';
import { useLogin } from '../context';
import { isValidEmail } from '../email';
import type { MainBlock } from '../methods';
import { useAsyncAction } from '../useAsyncAction';
import { LastUsed } from './LastUsed';
import { PasswordEntry } from './PasswordEntry';

type EmailBlock = Extract<MainBlock, { kind: 'emailForm' }>;

/**
 * Main's email block: an email field, or send buttons when the email is already known; with
 * passwords offered too it is the combined form and ends with 'Use a password instead'.
 */
export function EmailForm({ block }: { block: EmailBlock }) {
  const { state } = useLogin();
  const knownEmail = state.primary?.email ?? null;
  // Shared with 'Use a password instead', which carries the typed email to the password screen.
  const [email, setEmail] = useState(state.formState.emailState.userSuppliedEmail);
  return (
    <div className="lk-form">
      {knownEmail ? (
        <KnownEmailButtons block={block} email={knownEmail} />
      ) : (
        <EmailInputForm block={block} email={email} setEmail={setEmail} />
      )}
      {block.password ? <PasswordEntry lastUsed={block.lastUsed === 'passwords'} email={knownEmail ?? email} /> : null}
    </div>
  );
}

function EmailInputForm({ block, email, setEmail }: { block: EmailBlock; email: string; setEmail: (v: string) => void }) {
  const { controller, t } = useLogin();
  const submit = useAsyncAction((value: string) => controller.submitEmail(value));

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const value = email.trim();
    if (!isValidEmail(value)) {
      submit.setError(t('email.invalid'));
      return;
    }
    void submit.run(value);
  };

  const lastUsed = block.lastUsed === 'emailMagicLinks' || block.lastUsed === 'emailOtp';
  return (
    <form className="lk-form" onSubmit={onSubmit} noValidate>
      <Input
        id="email-input"
        type="email"
        name="email"
        label={t('email.label')}
        placeholder={t('email.placeholder')}
        autoComplete="email"
        required
        value={email}
        onValueChange={setEmail}
        error={submit.error}
      />
      <LastUsed active={lastUsed}>
        {(describedBy) => (
          <Button type="submit" loading={submit.busy} aria-describedby={describedBy}>
            {t('email.continue')}
          </Button>
        )}
      </LastUsed>
    </form>
  );
}

function KnownEmailButtons({ block, email }: { block: EmailBlock; email: string }) {
  const { controller, t } = useLogin();
  const link = useAsyncAction(() => controller.sendMagicLink(email));
  const code = useAsyncAction(() => controller.sendOtp(email));
  const busy = link.busy || code.busy;
  return (
    <div className="lk-form">
      {block.magicLink ? (
        <LastUsed active={block.lastUsed === 'emailMagicLinks'}>
          {(describedBy) => (
            <Button loading={link.busy} busy={busy} aria-describedby={describedBy} onClick={() => void link.run()}>
              {t('email.sendLink')}
            </Button>
          )}
        </LastUsed>
      ) : null}
      {block.otp ? (
        <LastUsed active={block.lastUsed === 'emailOtp'}>
          {(describedBy) => (
            <Button
              variant={block.magicLink ? 'secondary' : 'primary'}
              loading={code.busy}
              busy={busy}
              aria-describedby={describedBy}
              onClick={() => void code.run()}
            >
              {t('email.sendCode')}
            </Button>
          )}
        </LastUsed>
      ) : null}
      <ErrorText message={link.error ?? code.error} />
    </div>
  );
}
