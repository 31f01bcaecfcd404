import { Button } from '../../../ui/Button';
import { Heading } from '../../../ui/Heading';
import { useLogin } from '../../context';
import { canSwitchMfaMethod } from '../../state/mfa';
import { BackButton } from '../BackButton';
import { CodeEntry } from './CodeEntry';

/** Entry of the authenticator app's code, with the SMS switch and the backup-code way out. */
export function TOTPEntryScreen() {
  const { state, controller, t } = useLogin();
  const enrolling = state.mfa.isEnrolling;
  return (
    <>
      <Heading>{t('mfa.totpEntry.title')}</Heading>
      <p className="lk-text">{t('mfa.totpEntry.body')}</p>
      <CodeEntry id="totp-input" verify={(code) => controller.mfa.authenticateTotp(code)} />
      {canSwitchMfaMethod(state.mfa) ? (
        <Button variant="text" onClick={() => controller.mfa.switchMethod('sms_otp')}>
          {t('mfa.switchToSms')}
        </Button>
      ) : null}
      {/* Backup codes belong to a registration that is already verified. */}
      {enrolling ? null : (
        <Button variant="text" onClick={() => controller.mfa.showRecoveryCodeEntry()}>
          {t('mfa.totpEntry.useRecoveryCode')}
        </Button>
      )}
      <BackButton />
    </>
  );
}
