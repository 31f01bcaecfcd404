import { Button } from '../../ui/Button';
import { Heading } from '../../ui/Heading';
import { ErrorIcon } from '../../ui/icons';
import { useLogin } from '../context';
import { errorScreenMessage } from '../errorMessages';
import { ErrorType } from '../state/types';

/** The Error screen; going back (to Main) is offered only when the error allows it. */
export function ErrorScreen() {
  const { state, controller, t } = useLogin();
  const error = state.error ?? { type: ErrorType.Default, canGoBack: false };
  const organizationName = state.flowState.organization?.organization_name;
  return (
    <div className="lk-center">
      <ErrorIcon label={t('error.iconLabel')} />
      {/* Focus lands on the title when the screen opens; the message is read with it. */}
      <Heading describedBy="error-message">{t('error.title')}</Heading>
      <p id="error-message" className="lk-text">{errorScreenMessage(error.type, t, organizationName)}</p>
      {error.canGoBack ? (
        <Button variant="secondary" onClick={() => controller.returnToMain()}>
          {t('error.back')}
        </Button>
      ) : null}
    </div>
  );
}
