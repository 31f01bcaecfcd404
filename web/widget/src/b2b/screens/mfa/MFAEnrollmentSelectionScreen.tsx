import { Button } from '../../../ui/Button';
import { Heading } from '../../../ui/Heading';
import { useLogin } from '../../context';
import { selectMfaEnrollmentMethods } from '../../selectors';

/** Several MFA methods may be enrolled: the member picks one, in the configured order. */
export function MFAEnrollmentSelectionScreen() {
  const { state, config, controller, t } = useLogin();
  const methods = selectMfaEnrollmentMethods(state, config);
  return (
    <>
      <Heading>{t('mfa.selection.title')}</Heading>
      <p className="lk-text">{t('mfa.selection.body')}</p>
      <ul className="lk-button-group lk-plain-list" aria-label={t('mfa.selection.listLabel')}>
        {methods.map((method) => (
          <li key={method}>
            <Button variant="secondary" onClick={() => controller.mfa.selectEnrollmentMethod(method)}>
              {t(`mfa.method.${method}`)}
            </Button>
          </li>
        ))}
      </ul>
    </>
  );
}
