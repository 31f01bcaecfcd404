import { useLogin } from '../context';
import { LinkSentView } from './LinkSentView';

/** After a magic link was sent: where to look, and a way to send it again. */
export function EmailConfirmationScreen() {
  const { state, controller } = useLogin();
  return (
    <LinkSentView
      title="emailConfirmation.title"
      body="emailConfirmation.body"
      email={state.formState.emailState.userSuppliedEmail}
      resend={() => controller.resendMagicLink()}
    />
  );
}
