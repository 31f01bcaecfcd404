import { Button } from '../../../ui/Button';
import { Flash, useFlash } from '../../../ui/Flash';
import { Heading } from '../../../ui/Heading';
import { useLogin } from '../../context';

/** After enrolling an authenticator app: the backup codes, to copy or download, then Done. */
export function RecoveryCodeSaveScreen() {
  const { state, controller, t, clock } = useLogin();
  const codes = state.mfa.totp.enrollment?.recoveryCodes ?? [];
  const flash = useFlash(clock);
  const onCopy = async () => {
    const result = await controller.mfa.copyRecoveryCodes();
    flash.show({ text: result.message, ok: result.ok });
  };
  return (
    <>
      <Heading>{t('mfa.recoverySave.title')}</Heading>
      <p className="lk-text">{t('mfa.recoverySave.body')}</p>
      <ul className="lk-codes" aria-label={t('mfa.recoverySave.listLabel')}>
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="lk-button-group">
        <Button variant="secondary" onClick={() => void onCopy()}>
          {t('mfa.recoverySave.copy')}
        </Button>
        <Button variant="secondary" onClick={() => controller.mfa.downloadRecoveryCodes()}>
          {t('mfa.recoverySave.download')}
        </Button>
      </div>
      <Flash message={flash.message} />
      <Button onClick={() => controller.mfa.acknowledgeRecoveryCodes()}>{t('mfa.recoverySave.done')}</Button>
    </>
  );
}
