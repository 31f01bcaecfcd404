/**
 * The effects of multi-factor authentication (spec section 4, after primary authentication): SMS
 * and authenticator-app calls, recovery codes, the phone library, the clipboard and the backup-code
 * download. The transitions themselves are in state/mfa.ts.
 */
import {
  recoveryCodesRecover,
  smsOtpAuthenticate,
  smsOtpSend,
  totpAuthenticate,
  totpCreate,
} from '../api/operations';
import type { AuthenticateResponse } from '../api/types';
import { formatPhoneNumber, importPhoneLib, parsePhoneNumber, type PhoneLibLoader } from '../phone/load';
import type { StringKey } from '../strings/en';
import { EventType } from './events';
import type { ActionResult, FlowCore } from './flowCore';
import { Screen, type Action, type MfaMethod } from './state/types';

/** The outcome of a copy: the text to announce either way. */
export interface CopyResult {
  ok: boolean;
  message: string;
}

/** How long the object URL of a downloaded file is kept (the download has started by then). */
const DOWNLOAD_URL_LIFETIME_MS = 10_000;

export class MfaFlow {
  constructor(
    private readonly core: FlowCore,
    private readonly loadPhoneLib: PhoneLibLoader = importPhoneLib,
  ) {}

  private get state() {
    return this.core.deps.store.getState();
  }

  private dispatch(action: Action): void {
    this.core.deps.store.dispatch(action);
  }

  /** The member and organization every MFA call names, with the login's intermediate session. */
  private member() {
    const info = this.state.mfa.primaryInfo;
    if (!info) return null;
    return {
      organization_id: info.organizationId,
      member_id: info.memberId,
      intermediate_session_token: this.core.intermediateSessionToken(),
    };
  }

  /** Runs once MFA is entered: whatever the first screen needs from the server. */
  begin(): void {
    const screen = this.state.screen;
    if (screen === Screen.SMSOTPEntry) void this.ensureSmsCode();
    if (screen === Screen.TOTPEnrollmentQRCode) void this.createTotp();
  }

  /** MFA Enrollment Selection: the member picks the method to set up. */
  selectEnrollmentMethod(method: MfaMethod): void {
    this.dispatch({ type: 'mfaEnrollmentMethodSelected', method });
    if (method === 'totp') void this.createTotp();
  }

  /** Switches between TOTP and SMS entry when both are enrolled and permitted. */
  switchMethod(method: MfaMethod): void {
    this.dispatch({ type: 'mfaMethodSwitched', method });
    if (method === 'sms_otp' && this.state.screen === Screen.SMSOTPEntry) void this.ensureSmsCode();
  }

  /** An enrolled number gets a code unless one was sent already; its display form is looked up. */
  private async ensureSmsCode(): Promise<void> {
    const { smsOtp, primaryInfo } = this.state.mfa;
    if (smsOtp.codeExpiration === null && !smsOtp.isSending) {
      await this.sendSms(null);
      return;
    }
    const number = primaryInfo?.memberPhoneNumber;
    if (!number) return;
    const formattedDestination = await formatPhoneNumber(this.loadPhoneLib, this.core.deps.backend.clock, number);
    this.dispatch({ type: 'mfaSmsDestinationFormatted', phoneNumber: number, formattedDestination });
  }

  /** SMS OTP Enrollment: validates the number (phone library, 2 s at most) and texts it a code. */
  async enrollPhone(countryCode: string, text: string): Promise<ActionResult> {
    const parsed = await parsePhoneNumber(this.loadPhoneLib, this.core.deps.backend.clock, countryCode, text);
    // A validation message like the email form's: shown under the field, not reported.
    if (!parsed.valid) return { ok: false, message: this.core.deps.getTranslate()('error.api.invalid_phone_number') };
    return this.sendSms({ phoneNumber: parsed.e164, countryCode });
  }

  /** 'Resend code' on SMS OTP Entry: to the number being enrolled, else to the enrolled one. */
  resendSms(): Promise<ActionResult> {
    const { isEnrolling, smsOtp } = this.state.mfa;
    return this.sendSms(isEnrolling ? smsOtp.enrolledNumber : null);
  }

  /** Texts a code; `enroll` names a new number, null means the member's enrolled number. */
  private async sendSms(enroll: { phoneNumber: string; countryCode: string } | null): Promise<ActionResult> {
    const { backend, emit } = this.core.deps;
    const member = this.member();
    const destination = enroll?.phoneNumber ?? this.state.mfa.primaryInfo?.memberPhoneNumber ?? '';
    if (!member) return this.core.failInline(null);
    this.dispatch({ type: 'mfaSmsSendStarted' });
    let formattedDestination: string;
    try {
      [, formattedDestination] = await Promise.all([
        smsOtpSend(backend.http, { ...member, mfa_phone_number: enroll?.phoneNumber }),
        formatPhoneNumber(this.loadPhoneLib, backend.clock, destination),
      ]);
    } catch (err) {
      const result = this.core.failInline(err);
      if (!result.ok) this.dispatch({ type: 'mfaSmsSendFailed', now: backend.clock.now(), error: result.message });
      return result;
    }
    this.dispatch({ type: 'mfaSmsSent', now: backend.clock.now(), formattedDestination, enrolledNumber: enroll });
    emit.event(EventType.B2BSMSOTPSend, { organization_id: member.organization_id, member_id: member.member_id });
    return { ok: true };
  }

  async authenticateSms(code: string): Promise<ActionResult> {
    const member = this.member();
    if (!member) return this.core.failInline(null);
    const { backend, getConfig } = this.core.deps;
    return this.complete('sms_otp', EventType.B2BSMSOTPAuthenticate, () =>
      smsOtpAuthenticate(backend.http, { ...member, code, session_duration_minutes: getConfig().sessionDurationMinutes }),
    );
  }

  /** TOTP create, unless one is running or done; the answer applies only to the same member. */
  async createTotp(): Promise<void> {
    const { totp } = this.state.mfa;
    const member = this.member();
    if (!member || totp.isCreating || totp.enrollment) return;
    const { backend, emit } = this.core.deps;
    this.dispatch({ type: 'mfaTotpCreateStarted' });
    try {
      const resp = await totpCreate(backend.http, member);
      this.dispatch({
        type: 'mfaTotpCreated',
        memberId: member.member_id,
        organizationId: member.organization_id,
        secret: resp.secret,
        qrCode: resp.qr_code,
        recoveryCodes: Array.isArray(resp.recovery_codes) ? resp.recovery_codes : [],
      });
      emit.event(EventType.B2BTOTPCreate, resp);
    } catch (err) {
      const result = this.core.failInline(err);
      if (!result.ok) this.dispatch({ type: 'mfaTotpCreateFailed', error: result.message });
    }
  }

  /** 'Show code' / 'Show QR code'. */
  toggleTotpCode(): void {
    this.dispatch({ type: 'mfaTotpCodeToggled' });
  }

  /** Continue from an enrollment screen to the code entry. */
  continueToTotpEntry(): void {
    this.dispatch({ type: 'mfaTotpEntryRequested' });
  }

  async authenticateTotp(code: string): Promise<ActionResult> {
    const member = this.member();
    if (!member) return this.core.failInline(null);
    const { backend, getConfig } = this.core.deps;
    return this.complete('totp', EventType.B2BTOTPAuthenticate, () =>
      totpAuthenticate(backend.http, { ...member, code, session_duration_minutes: getConfig().sessionDurationMinutes }),
    );
  }

  showRecoveryCodeEntry(): void {
    this.dispatch({ type: 'mfaRecoveryCodeEntryRequested' });
  }

  async recover(recoveryCode: string): Promise<ActionResult> {
    const member = this.member();
    if (!member) return this.core.failInline(null);
    const { backend, getConfig } = this.core.deps;
    return this.complete('recovery_code', EventType.B2BRecoveryCodesRecover, () =>
      recoveryCodesRecover(backend.http, {
        ...member,
        recovery_code: recoveryCode,
        session_duration_minutes: getConfig().sessionDurationMinutes,
      }),
    );
  }

  /** Runs a second-factor check and, on success, logs in and moves on. */
  private async complete(
    method: MfaMethod | 'recovery_code',
    event: EventType,
    call: () => Promise<AuthenticateResponse>,
  ): Promise<ActionResult> {
    const { backend, emit } = this.core.deps;
    let resp: AuthenticateResponse;
    try {
      resp = await call();
    } catch (err) {
      return this.core.failInline(err);
    }
    if (!resp.member_session) return this.core.failInline(null);
    backend.session.applyAuthResponse(resp);
    emit.event(event, resp);
    this.dispatch({ type: 'mfaAuthenticated', method });
    // Enrolling by app ends on Recovery Code Save; the login is complete once it is acknowledged.
    if (this.state.screen !== Screen.RecoveryCodeSave) emit.event(EventType.AuthenticateFlowComplete, {});
    return { ok: true };
  }

  acknowledgeRecoveryCodes(): void {
    this.dispatch({ type: 'mfaRecoveryCodesAcknowledged' });
    this.core.deps.emit.event(EventType.AuthenticateFlowComplete, {});
  }

  private recoveryCodes(): string[] {
    return this.state.mfa.totp.enrollment?.recoveryCodes ?? [];
  }

  copyRecoveryCodes(): Promise<CopyResult> {
    return this.copy(this.recoveryCodes().join('\n'), 'mfa.recoverySave.copied', 'mfa.recoverySave.copyFailed');
  }

  copyTotpSecret(): Promise<CopyResult> {
    const secret = this.state.mfa.totp.enrollment?.secret ?? '';
    return this.copy(secret, 'mfa.totpManual.copied', 'mfa.totpManual.copyFailed');
  }

  /** Writes to the clipboard; success and failure both come back as text to announce. */
  private async copy(text: string, done: StringKey, failed: StringKey): Promise<CopyResult> {
    const t = this.core.deps.getTranslate();
    try {
      if (!text || typeof navigator === 'undefined' || !navigator.clipboard) throw new Error('clipboard unavailable');
      await navigator.clipboard.writeText(text);
    } catch {
      return { ok: false, message: t(failed) };
    }
    return { ok: true, message: t(done) };
  }

  /** Saves the codes as `{organization}-backup-codes.txt`. */
  downloadRecoveryCodes(): void {
    const { backend } = this.core.deps;
    const organization = this.state.flowState.organization?.organization_name || 'organization';
    const url = URL.createObjectURL(new Blob([`${this.recoveryCodes().join('\n')}\n`], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `${organization}-backup-codes.txt`;
    link.hidden = true;
    document.body.appendChild(link);
    link.click();
    link.remove();
    backend.clock.setTimeout(() => URL.revokeObjectURL(url), DOWNLOAD_URL_LIFETIME_MS);
  }
}
