import { Input } from '../../ui/Input';
import { useLogin } from '../context';

/**
 * An email field outside the Main screen's form: the password screens (autocomplete "username", so the
 * browser offers the saved account) and SSO discovery ("email").
 */
export function EmailField({
  value,
  onChange,
  error,
  autoComplete = 'username',
}: {
  value: string;
  onChange: (v: string) => void;
  error: string | null;
  autoComplete?: 'username' | 'email';
}) {
  const { t } = useLogin();
  return (
    <Input
      id="email-input"
      type="email"
      name="email"
      label={t('email.label')}
      placeholder={t('email.placeholder')}
      autoComplete={autoComplete}
      required
      value={value}
      onValueChange={onChange}
      error={error}
    />
  );
}
