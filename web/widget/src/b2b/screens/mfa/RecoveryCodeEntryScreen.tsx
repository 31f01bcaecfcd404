import { useState, type FormEvent } from 'react';
import { Button } from '../../../ui/Button';
import { Heading } from '../../../ui/Heading';
import { Input } from '../../../ui/Input';
import { useLogin } from '../../context';
import { useAsyncAction } from '../../useAsyncAction';
import { BackButton } from '../BackButton';

/** Logs in with one of the saved backup codes instead of the authenticator app. */
export function RecoveryCodeEntryScreen() {
  const { controller, t } = useLogin();
  const [code, setCode] = useState('');
  const recover = useAsyncAction((value: string) => controller.mfa.recover(value));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const value = code.trim();
    if (value === '') {
      recover.setError(t('mfa.recoveryEntry.required'));
      return;
    }
    void recover.run(value);
  };
  return (
    <>
      <Heading>{t('mfa.recoveryEntry.title')}</Heading>
      <p className="lk-text">{t('mfa.recoveryEntry.body')}</p>
      <form className="lk-form" onSubmit={onSubmit} noValidate>
        <Input
          id="recovery-code-input"
          label={t('mfa.recoveryEntry.label')}
          value={code}
          onValueChange={setCode}
          autoComplete="one-time-code"
          autoCapitalize="none"
          spellCheck={false}
          required
          error={recover.error}
        />
        <Button type="submit" loading={recover.busy}>
          {t('mfa.continue')}
        </Button>
      </form>
      <BackButton />
    </>
  );
}
