import { useLayoutEffect, useRef, useState } from 'react';
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
  // A focused button that leaves the page drops the keyboard focus out of the widget (WCAG 2.4.3).
  // So once pressed, "Try again" stays while the retry runs (busy, as ui/Button.tsx does), and when
  // the QR code replaces it the heading takes the focus, if the press held it (as the IdP's
  // useFocusAfterPress does): the host page's focus is never taken.
  const [retried, setRetried] = useState(false);
  const refocus = useRef(false);
  const body = useRef<HTMLParagraphElement>(null);
  useLayoutEffect(() => {
    if (!enrollment || !refocus.current) return;
    refocus.current = false;
    body.current?.parentElement?.querySelector<HTMLElement>('[data-lk-heading]')?.focus();
  }, [enrollment]);
  return (
    <>
      <Heading>{t('mfa.totpQr.title')}</Heading>
      <p className="lk-text" ref={body}>
        {t('mfa.totpQr.body')}
      </p>
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
      ) : isCreating && !retried ? (
        <div className="lk-center">
          <Spinner label={t('mfa.totpQr.loading')} />
        </div>
      ) : (
        <Button
          variant="secondary"
          loading={isCreating}
          onClick={(e) => {
            refocus.current = (e.currentTarget.getRootNode() as Document | ShadowRoot).activeElement === e.currentTarget;
            setRetried(true);
            void controller.mfa.createTotp();
          }}
        >
          {t('mfa.totpQr.retry')}
        </Button>
      )}
      <BackButton />
    </>
  );
}
