import { Button } from '../../ui/Button';
import { useLogin } from '../context';
import { LastUsed } from './LastUsed';

/** 'Use a password instead': shown whenever passwords are offered (spec section 2). */
export function PasswordEntry({ lastUsed }: { lastUsed: boolean }) {
  const { controller, t } = useLogin();
  return (
    <LastUsed active={lastUsed}>
      {(describedBy) => (
        <Button variant="secondary" aria-describedby={describedBy} onClick={() => controller.redirects.unavailable('passwords')}>
          {t('password.useInstead')}
        </Button>
      )}
    </LastUsed>
  );
}
