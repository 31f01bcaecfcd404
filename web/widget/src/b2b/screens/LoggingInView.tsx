import { Heading } from '../../ui/Heading';
import { Spinner } from '../../ui/Spinner';
import { useLogin } from '../context';

/** Shown instead of any screen while a token from the page address is authenticated. */
export function LoggingInView() {
  const { t } = useLogin();
  return (
    <div className="lk-center">
      <Spinner label={t('loggingIn.title')} />
      <Heading>{t('loggingIn.title')}</Heading>
    </div>
  );
}
