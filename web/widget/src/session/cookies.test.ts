import { describe, expect, it } from 'vitest';
import { isLocalDevHost } from './cookies';

describe('isLocalDevHost', () => {
  it.each(['localhost', '[::1]', '127.0.0.1', '127.10.20.30'])('%s is local (no Secure flag)', (h) => expect(isLocalDevHost(h)).toBe(true));
  it.each(['example.com', 'localhost.example.com', '127.0.0.1.nip.io', '10.0.0.1', '::1'])('%s is not local', (h) =>
    expect(isLocalDevHost(h)).toBe(false),
  );
});
