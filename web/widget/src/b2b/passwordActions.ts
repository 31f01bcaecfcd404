/**
 * What the password screens call. Opening a password screen is a plain transition, done here; the
 * effects behind a Continue (member lookup, login, the emails that set a password) are the
 * passwords part (passwordFlow.ts), which most pages never need. The controller preloads that part
 * once the widget is up when passwords are configured, so it is normally there before any click;
 * otherwise an action loads it first while its button shows busy, and a failed load is the
 * button's inline error (the next click tries again).
 */
import type { ActionResult, FlowCore } from './flowCore';
import type { PasswordFlow } from './passwordFlow';

export class PasswordActions {
  constructor(
    private readonly core: FlowCore,
    private readonly load: () => Promise<PasswordFlow>,
  ) {}

  /**
   * 'Use a password instead' (spec section 4): always Password Authenticate, carrying the email
   * already known or typed (even empty or malformed: that screen has its own field and refuses an
   * invalid email before anything is sent).
   */
  usePassword(typedEmail: string): void {
    const email = this.core.deps.store.getState().primary?.email || typedEmail.trim();
    this.core.deps.store.dispatch({ type: 'passwordAuthenticateRequested', email });
  }

  /** 'Sign up or reset password'. */
  openForgot(email: string): void {
    this.core.deps.store.dispatch({ type: 'passwordForgotRequested', email: email.trim() });
  }

  /** The email step: the member lookup decides between the password and a verification link. */
  submitEmail(typed: string): Promise<ActionResult> {
    return this.run((flow) => flow.submitEmail(typed));
  }

  /** Password Authenticate's Continue. */
  authenticate(typed: string, password: string): Promise<ActionResult> {
    return this.run((flow) => flow.authenticate(typed, password));
  }

  /** Password Forgot Form, and its confirmation's resend. */
  forgot(typed: string): Promise<ActionResult> {
    return this.run((flow) => flow.forgot(typed));
  }

  private async run(action: (flow: PasswordFlow) => Promise<ActionResult>): Promise<ActionResult> {
    let flow: PasswordFlow;
    try {
      flow = await this.load();
    } catch (err) {
      return this.core.failInline(err);
    }
    return action(flow);
  }
}
