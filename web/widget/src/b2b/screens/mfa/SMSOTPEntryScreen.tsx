import { Button } from '../../../ui/Button';
import { CodeExpiry } from '../../../ui/CodeExpiry';
import { ErrorText } from '../../../ui/ErrorText';
import { Heading } from '../../../ui/Heading';
import { ResendButton } from '../../../ui/ResendButton';
import { Spinner } from '../../../ui/Spinner';
import { formatMinutesSeconds, useCountdown } from '../../../ui/useCountdown';
import { useLogin } from '../../context';
import { canSwitchMfaMethod } from '../../state/mfa';
import { BackButton } from '../BackButton';
import { CodeEntry } from './CodeEntry';

/** Entry of the texted code: where it went, its 2-minute countdown, resend, and the TOTP switch. */
export function SMSOTPEntryScreen() {
  const { state, controller, t, clock } = useLogin();
  const sms = state.mfa.smsOtp;
  const secondsLeft = useCountdown(sms.codeExpiration, clock);
  const waitingForFirstCode = sms.isSending && sms.codeExpiration === null;
  return (
    <>
      <Heading>{t('otp.title')}</Heading>
      {sms.formattedDestination ? (
        <p className="lk-text">{t('mfa.smsEntry.body', { phoneNumber: sms.formattedDestination })}</p>
      ) : null}
      {waitingForFirstCode ? <Spinner size="small" label={t('mfa.smsEntry.sending')} /> : null}
      <CodeEntry id="sms-otp-input" verify={(code) => controller.mfa.authenticateSms(code)} />
      <ErrorText message={sms.sendError} />
      <CodeExpiry
        secondsLeft={secondsLeft}
        countdownText={t('otp.expiresIn', { time: formatMinutesSeconds(secondsLeft) })}
        expiredText={t('otp.expired')}
      />
      <ResendButton
        clock={clock}
        onResend={() => controller.mfa.resendSms()}
        labels={{ idle: t('otp.resend'), sending: t('otp.resending'), sent: t('otp.resent') }}
      />
      {canSwitchMfaMethod(state.mfa) ? (
        <Button variant="text" onClick={() => controller.mfa.switchMethod('totp')}>
          {t('mfa.switchToTotp')}
        </Button>
      ) : null}
      <BackButton />
    </>
  );
}
