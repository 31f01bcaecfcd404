import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { Heading } from '../../ui/Heading';
import { PasswordInput } from '../../ui/PasswordInput';
import { useLogin } from '../context';
import { isPasswordAccepted } from '../state/passwordReducer';
import { useAsyncAction } from '../useAsyncAction';
import { PasswordStrengthFeedback } from './PasswordStrengthFeedback';

const FEEDBACK_ID = 'password-strength';

/**
 * Password Reset Form: the new password, judged by the server as it is typed; Continue stays
 * disabled until the server accepts exactly the password in the field.
 */
export function PasswordResetScreen() {
  const { state, controller, t } = useLogin();
  const [password, setPassword] = useState('');
  const [email] = useState(() => controller.passwordReset.knownEmail());
  const submit = useAsyncAction(() => controller.passwordReset.submit(password));
  const accepted = isPasswordAccepted(state.formState.passwordState.strength, password);
  useEffect(() => () => controller.passwordReset.cancelStrengthCheck(), [controller]);

  const onChange = (value: string) => {
    setPassword(value);
    controller.passwordReset.checkStrength(value);
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (accepted) void submit.run();
  };

  return (
    <>
      <Heading>{t('password.reset.title')}</Heading>
      <p className="lk-text">{t('password.reset.body')}</p>
      <form className="lk-form" onSubmit={onSubmit} noValidate>
        {/* For password managers, which save a new password under the form's username: hidden,
            out of the tab order and of the accessibility tree (focus.ts skips it too). */}
        {email ? (
          <input
            className="lk-visually-hidden"
            type="email"
            name="username"
            autoComplete="username"
            value={email}
            readOnly
            tabIndex={-1}
            aria-hidden="true"
          />
        ) : null}
        <PasswordInput
          id="new-password-input"
          label={t('password.newLabel')}
          value={password}
          onValueChange={onChange}
          showLabel={t('password.show')}
          hideLabel={t('password.hide')}
          autoComplete="new-password"
          error={submit.error}
          describedBy={FEEDBACK_ID}
        />
        <PasswordStrengthFeedback id={FEEDBACK_ID} password={password} />
        <Button type="submit" loading={submit.busy} disabled={!accepted}>
          {t('password.continue')}
        </Button>
      </form>
    </>
  );
}
