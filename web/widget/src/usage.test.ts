import { afterEach, describe, expect, it, vi } from 'vitest';
import { APIError, SDKUsageError } from './api/errors';
import { B2BClient } from './client';
import { usageEn } from './strings/usage';
import { json } from './test/fakeServer';
import { acmeServer, newClient } from './test/harness';

// Plain-JavaScript callers get no type checking: spec section 8's usage error tells them which
// argument of which method is wrong, before the method does anything.
const usage = (method: string, line: string) => `Invalid call to ${method}\n${line}`;

/** Calls `call` and returns what it threw synchronously (it must throw). */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (err) {
    return err;
  }
  throw new Error('expected a synchronous throw');
}

describe('the usage error', () => {
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('keeps the spec wording in its strings table', () => {
    expect(usageEn['usage.call']).toBe('Invalid call to {method}\n{message}');
    expect(usageEn['usage.string']).toBe('{field} must be a string.');
  });

  it.each<[string, string, (c: B2BClient) => unknown]>([
    ['session.onChange', 'callback must be a function.', (c) => c.session.onChange('not a function' as never)],
    ['session.revoke', 'options must be an object.', (c) => c.session.revoke('force' as never)],
    ['session.revoke', 'forceClear must be a boolean.', (c) => c.session.revoke({ forceClear: 'yes' as never })],
    ['session.authenticate', 'options must be an object.', (c) => c.session.authenticate([] as never)],
    ['session.authenticate', 'session_duration_minutes must be a number.', (c) => c.session.authenticate({ session_duration_minutes: '60' as never })],
    ['session.authenticate', 'session_duration_minutes must be a number.', (c) => c.session.authenticate({ session_duration_minutes: null as never })],
    ['rbac.isAuthorized', 'resourceId must be a string.', (c) => c.rbac.isAuthorized(undefined as never, 'read')],
    ['rbac.isAuthorized', 'action must be a string.', (c) => c.rbac.isAuthorized('documents', 7 as never)],
    ['rbac.isAuthorizedSync', 'resourceId must be a string.', (c) => c.rbac.isAuthorizedSync({} as never, 'read')],
    ['mountLogin', 'options must be an object.', (c) => c.mountLogin(undefined as never)],
    ['mountLogin', 'elementId must be a string.', (c) => c.mountLogin({ elementId: 1 as never, config: { products: [] } })],
    ['mountLogin', 'config must be an object.', (c) => c.mountLogin({ elementId: '#root' } as never)],
    ['mountIdentityProvider', 'options must be an object.', (c) => c.mountIdentityProvider('#root' as never)],
    ['mountIdentityProvider', 'elementId must be a string.', (c) => c.mountIdentityProvider({ elementId: null as never })],
    ['unmount', 'elementId must be a string.', (c) => c.unmount(undefined as never)],
  ])('%s: %s', (method, line, call) => {
    document.body.innerHTML = '<div id="root"></div>';
    const server = acmeServer();
    const { client } = newClient(server);
    const before = server.calls.length;
    // Thrown at the call, not as a rejected promise, and before anything is sent or mounted.
    const err = thrown(() => call(client));
    expect(err).toBeInstanceOf(SDKUsageError);
    expect((err as Error).name).toBe('SDKUsageError');
    expect((err as Error).message).toBe(usage(method, line));
    expect(server.calls.length).toBe(before);
    expect(document.querySelector('#root')!.children).toHaveLength(0);
  });

  it('B2BClient: the public token must be a string, and the options an object', () => {
    expect(thrown(() => new B2BClient(42 as never))).toEqual(new SDKUsageError(usage('B2BClient', 'publicToken must be a string.')));
    expect(thrown(() => new B2BClient('public-token-test-x', 'http://x' as never))).toEqual(
      new SDKUsageError(usage('B2BClient', 'options must be an object.')),
    );
  });

  it('lets well-typed calls through, optional arguments left out', async () => {
    const server = acmeServer().on('POST', '/b2b/sessions/revoke', json({}));
    const { client } = newClient(server);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const stop = client.session.onChange(() => undefined);
    stop();
    expect(client.rbac.isAuthorizedSync('documents', 'read')).toBe(false);
    await expect(client.rbac.isAuthorized('documents', 'read')).resolves.toBe(false);
    // No session: the server's answer (not a usage error) decides.
    await expect(client.session.authenticate()).rejects.toBeInstanceOf(APIError);
    await expect(client.session.authenticate({ session_duration_minutes: 60 })).rejects.toBeInstanceOf(APIError);
    expect(server.callsTo('/b2b/sessions/authenticate').map((c) => c.body)).toEqual([{}, { session_duration_minutes: 60 }]);
    await expect(client.session.revoke({ forceClear: true })).resolves.toBeUndefined();
    expect(() => client.unmount('#absent')).not.toThrow();
  });
});
