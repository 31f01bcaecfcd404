import { useState } from 'react';
import { CodeInput } from '../../ui/CodeInput';
import { CodeExpiry } from '../../ui/CodeExpiry';
import { Heading } from '../../ui/Heading';
import { ResendButton } from '../../ui/ResendButton';
import { Spinner } from '../../ui/Spinner';
import { formatMinutesSeconds, useCountdown } from '../../ui/useCountdown';
import { useLogin } from '../context';
import { useAsyncAction } from '../useAsyncAction';
import { BackButton } from './BackButton';

/** Entry of the 6-digit emailed passcode, with its expiry countdown and a resend control. */
export function EmailOTPEntryScreen() {
  const { state, controller, t, clock } = useLogin();
  const email = state.formState.emailState.userSuppliedEmail;
  const secondsLeft = useCountdown(state.formState.otpState.codeExpiration, clock);
  const verify = useAsyncAction((code: string) => controller.authenticateOtp(code));
  const [attempt, setAttempt] = useState(0);

  const onComplete = async (code: string) => {
    const result = await verify.run(code);
    // A wrong code clears the field so the next attempt starts from an empty input.
    if (!result.ok) setAttempt((n) => n + 1);
  };

  // A failed resend (spec section 8's message) shows in the field's error region, like a wrong code.
  const resend = async () => {
    verify.setError(null);
    const result = await controller.resendOtp();
    if (!result.ok) verify.setError(result.message);
    return result;
  };

  return (
    <>
      <Heading>{t('otp.title')}</Heading>
      <p className="lk-text">{t('otp.body', { email })}</p>
      <CodeInput
        id="otp-input"
        label={t('otp.codeLabel')}
        busy={verify.busy}
        error={verify.error}
        resetKey={attempt}
        onComplete={(code) => void onComplete(code)}
      />
      {verify.busy ? <Spinner size="small" label={t('otp.verifying')} /> : null}
      <CodeExpiry
        secondsLeft={secondsLeft}
        countdownText={t('otp.expiresIn', { time: formatMinutesSeconds(secondsLeft) })}
        expiredText={t('otp.expired')}
      />
      <ResendButton
        clock={clock}
        onResend={resend}
        labels={{ idle: t('otp.resend'), sending: t('otp.resending'), sent: t('otp.resent') }}
      />
      <BackButton />
    </>
  );
}
