import { describe, expect, it } from 'vitest';
import { apiError, FakeServer, json, ORIGIN } from '../test/fakeServer';
import { APIError, APISchemaError, APIUnreachableError } from './errors';
import { HttpClient } from './http';
import { magicLinkEmailLoginOrSignup, sessionsRevoke } from './operations';

const TOKEN = 'public-token-test-123';

function client(server: FakeServer, sessionToken: string | null = null) {
  return new HttpClient({
    baseURL: ORIGIN,
    publicToken: TOKEN,
    getSessionToken: () => sessionToken,
    getTelemetryIds: () => ({ memberId: 'member-test-1' }),
    fetch: server.fetch,
  });
}

const decode = (b64: string) => new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));

describe('HttpClient request format', () => {
  it('sends Basic auth with the public token twice when logged out, and all SDK headers', async () => {
    const server = new FakeServer().on('POST', '/b2b/magic_links/email/login_or_signup', json({ status_code: 200 }));
    await magicLinkEmailLoginOrSignup(client(server), {
      email_address: 'ada@acme.test',
      organization_id: 'organization-test-1',
      login_redirect_url: undefined,
      locale: 'en',
    });
    const [call] = server.calls;
    expect(call!.url).toBe(`${ORIGIN}/sdk/v1/b2b/magic_links/email/login_or_signup`);
    expect(call!.method).toBe('POST');
    expect(call!.credentials).toBe('include');
    expect(call!.headers.Authorization).toBe(`Basic ${btoa(`${TOKEN}:${TOKEN}`)}`);
    expect(call!.headers['Content-Type']).toBe('application/json');
    expect(call!.headers['X-SDK-Parent-Host']).toBe(window.location.origin);
    const telemetry = JSON.parse(decode(call!.headers['X-SDK-Client']!));
    expect(telemetry).toMatchObject({
      app: { identifier: window.location.hostname },
      sdk: { identifier: 'Latchkey widget' },
      stytch_member_id: 'member-test-1',
    });
    expect(telemetry.event_id).toMatch(/^event-id-[0-9a-f-]{36}$/);
    // Undefined fields are absent from the JSON body, never null.
    expect(call!.rawBody).toBe('{"email_address":"ada@acme.test","organization_id":"organization-test-1","locale":"en"}');
  });

  it('uses the session token as the Basic-auth password when logged in', async () => {
    const server = new FakeServer().on('POST', '/b2b/sessions/revoke', json({}));
    await sessionsRevoke(client(server, 'session-token-xyz'));
    expect(server.calls[0]!.headers.Authorization).toBe(`Basic ${btoa(`${TOKEN}:session-token-xyz`)}`);
    expect(server.calls[0]!.rawBody).toBeUndefined();
  });
});

describe('HttpClient response handling', () => {
  const call = (reply: Parameters<FakeServer['on']>[2]) =>
    client(new FakeServer().on('POST', '/x', reply)).post('/x', {});

  it('returns the data payload of a 2xx answer', async () => {
    await expect(call(json({ organization: null }))).resolves.toEqual({ organization: null });
  });

  it('maps a JSON error to APIError with every field', async () => {
    const err = await call(apiError(404, 'organization_not_found', 'Not found.')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({
      status_code: 404,
      request_id: 'request-id-test',
      error_type: 'organization_not_found',
      error_message: 'Not found.',
      error_url: 'https://example.test/errors',
      message: 'Not found.',
    });
  });

  // The screen's text for it comes from the strings table (b2b/errorMessages.ts); message is for developers.
  it('keeps error_message empty when the server sent none', async () => {
    const err = await call({ status: 500, json: { error_type: 'internal_server_error' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status_code: 500, error_type: 'internal_server_error', error_message: '', message: 'Unknown error' });
  });

  it('maps a schema error', async () => {
    const err = await call({ status: 400, json: { body: [{ dataPath: '.email_address', message: 'is required' }] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APISchemaError);
    expect((err as Error).message).toBe('.email_address: is required');
  });

  it.each([
    ['network failure', 'network-error' as const, 'Unable to contact our servers.'],
    ['2xx that is not JSON', { status: 200, text: '<html>' }, 'Invalid JSON response from our servers.'],
    ['error that is not JSON', { status: 502, text: 'Bad gateway' }, 'Invalid response from our servers.'],
  ])('reports a %s as unreachable', async (_name, reply, message) => {
    const err = await call(reply).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIUnreachableError);
    expect((err as Error).message).toBe(message);
  });
});
