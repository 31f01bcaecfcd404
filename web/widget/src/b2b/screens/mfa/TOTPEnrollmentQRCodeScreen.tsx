import { Button } from '../../../ui/Button';
import { ErrorText } from '../../../ui/ErrorText';
import { Heading } from '../../../ui/Heading';
import { Spinner } from '../../../ui/Spinner';
import { useLogin } from '../../context';
import { BackButton } from '../BackButton';

/** The QR code of a new authenticator-app registration; 'Show code' switches to the key. */
export function TOTPEnrollmentQRCodeScreen() {
  const { state, controller, t } = useLogin();
  const { enrollment, isCreating, createError } = state.mfa.totp;
  return (
    <>
      <Heading>{t('mfa.totpQr.title')}</Heading>
      <p className="lk-text">{t('mfa.totpQr.body')}</p>
      {/* Always in the page, so its text is announced when a create fails (ErrorText). */}
      <ErrorText message={createError} />
      {enrollment ? (
        <>
          <img className="lk-qr" src={enrollment.qrCode} alt={t('mfa.totpQr.imageAlt')} width={200} height={200} />
          <Button variant="text" onClick={() => controller.mfa.toggleTotpCode()}>
            {t('mfa.totpQr.showCode')}
          </Button>
          <Button onClick={() => controller.mfa.continueToTotpEntry()}>{t('mfa.continue')}</Button>
        </>
      ) : isCreating ? (
        <div className="lk-center">
          <Spinner label={t('mfa.totpQr.loading')} />
        </div>
      ) : (
        <Button variant="secondary" onClick={() => void controller.mfa.createTotp()}>
          {t('mfa.totpQr.retry')}
        </Button>
      )}
      <BackButton />
    </>
  );
}
