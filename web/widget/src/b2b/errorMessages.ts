import { APIError, APISchemaError, APIUnreachableError } from '../api/errors';
import { en, type StringKey } from '../strings/en';
import type { Translate } from '../strings/t';
import { ErrorType } from './state/types';

const JIT_ERROR_TYPES = new Set(['email_jit_provisioning_not_allowed', 'invalid_email_for_jit_provisioning']);

export interface ErrorContext {
  email?: string;
  organizationName?: string;
}

/**
 * The text shown for a failed call (spec section 8): the strings-table entry for the server's
 * error_type when there is one, otherwise the server's error_message (or schema issues), and the
 * strings table's Default text when the server sent none: no user-visible text outside the table.
 */
export function errorMessage(err: unknown, t: Translate, ctx: ErrorContext = {}): string {
  if (err instanceof APIError) {
    if (JIT_ERROR_TYPES.has(err.error_type)) {
      return t('email.jitNotAllowed', { email: ctx.email ?? '', organizationName: ctx.organizationName ?? '' });
    }
    const key = `error.api.${err.error_type}`;
    if (key in en) return t(key as StringKey);
    if (err.error_message) return err.error_message;
  }
  if (err instanceof APIUnreachableError) return t(`error.client.${err.kind}`);
  if (err instanceof APISchemaError && err.issues.length > 0) return err.message;
  return t('error.screen.Default');
}

/** Payload of `callbacks.onError` and of the `stytch-error` DOM event. */
export interface WidgetErrorPayload {
  message: string;
  error_type?: string;
  status_code?: number;
  request_id?: string;
}

export function errorPayload(err: unknown, message: string): WidgetErrorPayload {
  const payload: WidgetErrorPayload = { message };
  if (err instanceof APIError) {
    payload.error_type = err.error_type;
    payload.status_code = err.status_code;
    if (err.request_id) payload.request_id = err.request_id;
  } else if (err instanceof APISchemaError) {
    payload.status_code = err.status_code;
  }
  return payload;
}

/** The Error screen's message for an error type; the auth-policy text names the organization when known. */
export function errorScreenMessage(type: ErrorType, t: Translate, organizationName?: string): string {
  if (type === ErrorType.CannotJoinOrgDueToAuthPolicy && organizationName) {
    return t('error.screen.CannotJoinOrgDueToAuthPolicyNamed', { organizationName });
  }
  return t(`error.screen.${type}`);
}
