import { Input } from '../../ui/Input';
import { useLogin } from '../context';

/** The email field of the password screens (the browser offers the saved account for it). */
export function PasswordEmailField({ value, onChange, error }: { value: string; onChange: (v: string) => void; error: string | null }) {
  const { t } = useLogin();
  return (
    <Input
      id="email-input"
      type="email"
      name="email"
      label={t('email.label')}
      placeholder={t('email.placeholder')}
      autoComplete="username"
      required
      value={value}
      onValueChange={onChange}
      error={error}
    />
  );
}
