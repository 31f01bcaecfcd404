import { useState } from 'react';
import type { StringKey } from '../../strings/en';
import type { ActionResult } from '../controller';
import { ErrorText } from '../../ui/ErrorText';
import { Heading } from '../../ui/Heading';
import { ResendButton } from '../../ui/ResendButton';
import { useLogin } from '../context';
import { MAIL_LINKS } from '../mailLinks';
import { BackButton } from './BackButton';

/**
 * "Check your email" after any emailed link (login, password reset, verification): the title and
 * body name the address, links open the common webmail searches in a new tab (MAIL_LINKS), and
 * resend repeats the same request.
 */
export function LinkSentView(props: { title: StringKey; body: StringKey; email: string; resend: () => Promise<ActionResult> }) {
  const { t, clock } = useLogin();
  const [error, setError] = useState<string | null>(null);
  const resend = async () => {
    setError(null);
    const result = await props.resend();
    if (!result.ok) setError(result.message);
    return result;
  };
  return (
    <>
      <Heading>{t(props.title)}</Heading>
      <p className="lk-text">{t(props.body, { email: props.email })}</p>
      <nav className="lk-row" aria-label={t('emailConfirmation.mailLinks')}>
        {MAIL_LINKS.map((l) => (
          <a key={l.label} className="lk-link" href={l.href} target="_blank" rel="noopener noreferrer">
            {t(l.label)}
          </a>
        ))}
      </nav>
      <div className="lk-row">
        <span className="lk-text lk-text--muted">{t('emailConfirmation.resendPrompt')}</span>
        <ResendButton
          clock={clock}
          onResend={resend}
          labels={{
            idle: t('emailConfirmation.resend'),
            sending: t('emailConfirmation.resending'),
            sent: t('emailConfirmation.resent'),
          }}
        />
      </div>
      <ErrorText message={error} />
      <BackButton />
    </>
  );
}
