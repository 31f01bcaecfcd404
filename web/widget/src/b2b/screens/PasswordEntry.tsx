import { Button } from '../../ui/Button';
import { useLogin } from '../context';
import { LastUsed } from './LastUsed';
import { PasswordEmailForm } from './PasswordEmailScreen';

/** 'Use a password instead' (spec section 2): the password screen, with the email typed so far. */
export function PasswordEntry({ lastUsed, email = '' }: { lastUsed: boolean; email?: string }) {
  const { controller, t } = useLogin();
  return (
    <LastUsed active={lastUsed}>
      {(describedBy) => (
        <Button variant="secondary" aria-describedby={describedBy} onClick={() => controller.passwords.usePassword(email)}>
          {t('password.useInstead')}
        </Button>
      )}
    </LastUsed>
  );
}

/**
 * Main's password form (passwords without an email method): the email step in place, whose member
 * lookup leads on; once the email is known (another method is required), the button alone.
 */
export function PasswordForm({ lastUsed }: { lastUsed: boolean }) {
  const { state } = useLogin();
  const known = state.primary?.email;
  return known ? <PasswordEntry lastUsed={lastUsed} email={known} /> : <PasswordEmailForm lastUsed={lastUsed} />;
}
