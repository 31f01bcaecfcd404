import { useState } from 'react';
import { CodeInput } from '../../../ui/CodeInput';
import { Spinner } from '../../../ui/Spinner';
import { useLogin } from '../../context';
import type { ActionResult } from '../../controller';
import { useAsyncAction } from '../../useAsyncAction';

/**
 * The 6-digit code field of the SMS and authenticator-app entry screens: submitted at the sixth
 * digit; a wrong code shows its message and clears the field for the next attempt.
 */
export function CodeEntry({ id, verify }: { id: string; verify: (code: string) => Promise<ActionResult> }) {
  const { t } = useLogin();
  const action = useAsyncAction(verify);
  const [attempt, setAttempt] = useState(0);
  const onComplete = async (code: string) => {
    const result = await action.run(code);
    if (!result.ok) setAttempt((n) => n + 1);
  };
  return (
    <>
      <CodeInput
        id={id}
        label={t('otp.codeLabel')}
        busy={action.busy}
        error={action.error}
        resetKey={attempt}
        onComplete={(code) => void onComplete(code)}
      />
      {action.busy ? <Spinner size="small" label={t('otp.verifying')} /> : null}
    </>
  );
}
