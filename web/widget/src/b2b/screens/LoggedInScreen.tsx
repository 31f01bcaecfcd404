import { Heading } from '../../ui/Heading';
import { SuccessIcon } from '../../ui/icons';
import { useLogin } from '../context';

export function LoggedInScreen() {
  const { t } = useLogin();
  return (
    <div className="lk-center">
      <SuccessIcon />
      <Heading>{t('loggedIn.title')}</Heading>
      <p className="lk-text">{t('loggedIn.body')}</p>
    </div>
  );
}
