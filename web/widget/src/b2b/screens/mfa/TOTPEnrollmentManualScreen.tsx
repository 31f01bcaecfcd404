import { Button } from '../../../ui/Button';
import { Flash, useFlash } from '../../../ui/Flash';
import { Heading } from '../../../ui/Heading';
import { useLogin } from '../../context';
import { BackButton } from '../BackButton';

/** The secret lower-cased in groups of four, as people type it into an authenticator app. */
export function chunkSecret(secret: string): string[] {
  return secret.toLowerCase().match(/.{1,4}/g) ?? [];
}

/** The setup key of a new authenticator-app registration, for typing it in by hand. */
export function TOTPEnrollmentManualScreen() {
  const { state, controller, t, clock } = useLogin();
  const enrollment = state.mfa.totp.enrollment;
  const flash = useFlash(clock);
  const onCopy = async () => {
    const result = await controller.mfa.copyTotpSecret();
    flash.show({ text: result.message, ok: result.ok });
  };
  return (
    <>
      <Heading>{t('mfa.totpManual.title')}</Heading>
      <p className="lk-text">{t('mfa.totpManual.body')}</p>
      <div className="lk-field">
        <span className="lk-label">
          {t('mfa.totpManual.secretLabel')}
        </span>
        <code className="lk-secret">
          {chunkSecret(enrollment?.secret ?? '').join(' ')}
        </code>
      </div>
      <Button variant="secondary" onClick={() => void onCopy()}>
        {t('mfa.totpManual.copy')}
      </Button>
      <Flash message={flash.message} />
      <Button variant="text" onClick={() => controller.mfa.toggleTotpCode()}>
        {t('mfa.totpManual.showQr')}
      </Button>
      <Button onClick={() => controller.mfa.continueToTotpEntry()}>{t('mfa.continue')}</Button>
      <BackButton />
    </>
  );
}
