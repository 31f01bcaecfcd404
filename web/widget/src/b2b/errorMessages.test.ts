import { describe, expect, it } from 'vitest';
import { APIError, APISchemaError, APIUnreachableError } from '../api/errors';
import { createTranslator, mergeStrings } from '../strings/t';
import { errorMessage, errorPayload, errorScreenMessage } from './errorMessages';
import { ErrorType } from './state/types';

const t = createTranslator(mergeStrings());
const apiErr = (error_type: string, error_message = 'server text') =>
  new APIError({ status_code: 400, error_type, error_message, request_id: 'req-1' }, 400);

describe('errorMessage', () => {
  it('uses the catalogue text for known error types', () => {
    expect(errorMessage(apiErr('otp_code_not_found'), t)).toBe('Invalid passcode, please try again.');
    expect(errorMessage(apiErr('invalid_email'), t)).toBe('Email format is invalid.');
    expect(errorMessage(apiErr('user_lock_limit_reached'), t)).toBe('Too many failed authentication attempts. Please try again later.');
  });

  it('falls back to the server message for other types', () => {
    expect(errorMessage(apiErr('rate_limit_exceeded', 'Slow down.'), t)).toBe('Slow down.');
  });

  it('names the email and organization for JIT provisioning errors', () => {
    const ctx = { email: 'eve@x.io', organizationName: 'Acme' };
    const expected = 'eve@x.io does not have access to Acme. If you think this is a mistake, contact your admin.';
    expect(errorMessage(apiErr('email_jit_provisioning_not_allowed'), t, ctx)).toBe(expected);
    expect(errorMessage(apiErr('invalid_email_for_jit_provisioning'), t, ctx)).toBe(expected);
  });

  it('describes client-side failures from the strings table (overridable)', () => {
    expect(errorMessage(new APIUnreachableError('unreachable'), t)).toBe('Unable to contact our servers.');
    const de = createTranslator(mergeStrings({ 'error.client.invalidJson': 'Ungültige Antwort.' }));
    expect(errorMessage(new APIUnreachableError('invalidJson'), de)).toBe('Ungültige Antwort.');
    expect(errorMessage(new Error('boom'), t)).toBe('Something went wrong. Try again later or contact your admin for help.');
  });

  // No user-visible text outside the strings table: the server's text when it sent some, else ours.
  it('uses the strings table when the server sent no message or no schema issue (overridable)', () => {
    const DEFAULT = 'Something went wrong. Try again later or contact your admin for help.';
    const bare = new APIError({ error_type: 'internal_server_error' }, 500);
    expect(errorMessage(bare, t)).toBe(DEFAULT);
    expect(errorMessage(new APIError({ error_type: 'internal_server_error', error_message: '' }, 500), t)).toBe(DEFAULT);
    expect(errorMessage(new APISchemaError({}, 400), t)).toBe(DEFAULT);
    const de = createTranslator(mergeStrings({ 'error.screen.Default': 'Etwas ist schiefgelaufen.' }));
    expect(errorMessage(bare, de)).toBe('Etwas ist schiefgelaufen.');
    expect(errorMessage(new APISchemaError({ body: [] }, 400), de)).toBe('Etwas ist schiefgelaufen.');
    const issue = new APISchemaError({ body: [{ dataPath: '.email_address', message: 'is required' }] }, 400);
    expect(errorMessage(issue, de)).toBe('.email_address: is required');
  });

  it('builds the onError payload from API errors', () => {
    expect(errorPayload(apiErr('x'), 'msg')).toEqual({ message: 'msg', error_type: 'x', status_code: 400, request_id: 'req-1' });
    expect(errorPayload(new Error('y'), 'msg')).toEqual({ message: 'msg' });
  });

  it('names the organization in the auth-policy error when known', () => {
    expect(errorScreenMessage(ErrorType.CannotJoinOrgDueToAuthPolicy, t, 'Acme')).toMatch(/policy of Acme/);
    expect(errorScreenMessage(ErrorType.CannotJoinOrgDueToAuthPolicy, t)).toMatch(/^Your organization’s authentication policy/);
  });
});
