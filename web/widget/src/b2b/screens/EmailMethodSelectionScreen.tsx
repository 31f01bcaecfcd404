import { Button } from '../../ui/Button';
import { ErrorText } from '../../ui/ErrorText';
import { Heading } from '../../ui/Heading';
import { useLogin } from '../context';
import { useAsyncAction } from '../useAsyncAction';
import { BackButton } from './BackButton';

/** Shown when both email methods are offered: the member picks a link or a code. */
export function EmailMethodSelectionScreen() {
  const { state, controller, t } = useLogin();
  const email = state.formState.emailState.userSuppliedEmail;
  const link = useAsyncAction(() => controller.sendMagicLink(email));
  const code = useAsyncAction(() => controller.sendOtp(email));
  const busy = link.busy || code.busy;
  return (
    <>
      <Heading>{t('methodSelection.title')}</Heading>
      <p className="lk-text">{t('methodSelection.sendingTo', { email })}</p>
      <div className="lk-form">
        <Button loading={link.busy} busy={busy} onClick={() => void link.run()}>
          {t('email.sendLink')}
        </Button>
        <Button
          variant="secondary"
          loading={code.busy}
          busy={busy}
          onClick={() => void code.run()}
        >
          {t('email.sendCode')}
        </Button>
        <ErrorText message={link.error ?? code.error} />
      </div>
      <BackButton />
    </>
  );
}
