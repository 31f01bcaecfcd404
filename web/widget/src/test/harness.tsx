import { act, render, within } from '@testing-library/react';
import { vi } from 'vitest';
import type { LoginOptions } from '../b2b/LoginApp';
import { B2BClient } from '../client';
import { B2BLogin } from '../react';
import { ACME, BOOTSTRAP, FakeServer, json, ORIGIN } from './fakeServer';
import { ManualClock } from './manualClock';

export const TOKEN = 'public-token-test-widget';

/** A fake server that answers bootstrap, the Acme lookup and telemetry. */
export function acmeServer(bootstrap: Record<string, unknown> = {}, organization: unknown = ACME): FakeServer {
  return new FakeServer()
    .on('GET', `/projects/bootstrap/${TOKEN}`, json({ ...BOOTSTRAP, ...bootstrap }))
    .on('POST', '/b2b/organizations/search', json({ organization }))
    .on('POST', '/events', json({}));
}

export function newClient(server: FakeServer, clock = new ManualClock(), navigate: (url: string) => void = () => undefined) {
  // Each test builds a fresh client for the same token; the "another client exists" warning that
  // this triggers is expected here and asserted in client.test.tsx.
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const client = new B2BClient(TOKEN, { baseURL: ORIGIN, fetch: server.fetch, clock, navigate });
  warn.mockRestore();
  return { client, clock };
}

export const defaultOptions = (): LoginOptions => ({
  config: { products: ['emailMagicLinks', 'emailOtp'], organizationSlug: 'acme', sessionOptions: { sessionDurationMinutes: 30 } },
});

/** Renders <B2BLogin> and returns queries scoped to its shadow root. */
export function renderLogin(server: FakeServer, options: Partial<LoginOptions> = {}) {
  // Navigations (OAuth and SSO starts) are recorded instead of leaving the test page.
  const navigate = vi.fn<(url: string) => void>();
  const { client, clock } = newClient(server, new ManualClock(), navigate);
  const onEvent = vi.fn();
  const onError = vi.fn();
  const props = { ...defaultOptions(), callbacks: { onEvent, onError }, ...options };
  const result = render(<B2BLogin client={client} {...props} />);
  const host = result.container.querySelector<HTMLElement>('[data-latchkey-widget]')!;
  // Queries run on the widget's root element inside the shadow root (Testing Library cannot
  // describe a ShadowRoot in its error messages).
  const root = host.shadowRoot!.querySelector<HTMLElement>('.lk-root')!;
  return { ...within(root), root, host, client, clock, server, navigate, onEvent, onError, rerender: result.rerender };
}

/** Advances the manual clock inside act() so React applies the resulting updates. */
export function tick(clock: ManualClock, ms: number) {
  act(() => clock.advance(ms));
}
