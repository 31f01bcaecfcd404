import { act, waitFor, within } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { B2BClient } from './client';
import { acmeServer, newClient, TOKEN } from './test/harness';

const mountOptions = (extra: Record<string, unknown> = {}) => ({
  elementId: '#root',
  config: { products: ['emailMagicLinks' as const], organizationSlug: 'acme' },
  ...extra,
});

function page() {
  document.body.innerHTML = '<main><div id="root"></div></main>';
  return document.getElementById('root')!;
}

// These tests drive the custom elements the way a host page does: their React roots update on
// their own schedule, outside act(), and Testing Library's findBy* waits for the result.
const actEnv = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
beforeAll(() => {
  actEnv.IS_REACT_ACT_ENVIRONMENT = false;
});
afterAll(() => {
  actEnv.IS_REACT_ACT_ENVIRONMENT = true;
});

const widgetRoot = (el: Element) => el.shadowRoot!.querySelector<HTMLElement>('.lk-root')!;

describe('mountLogin', () => {
  it('throws the documented message when the selector matches nothing', () => {
    const { client } = newClient(acmeServer());
    expect(() => client.mountLogin(mountOptions({ elementId: '#missing' }))).toThrow(
      new Error(
        'The selector you specified (#missing) applies to no DOM elements that are currently on the page. Make sure the element exists on the page before calling mountLogin()',
      ),
    );
    expect(() => client.mountIdentityProvider({ elementId: '.nope' })).toThrow(
      new Error(
        'The selector you specified (.nope) applies to no DOM elements that are currently on the page. Make sure the element exists on the page before calling mountIdentityProvider()',
      ),
    );
  });

  it('renders stytch-b2b-ui with an open shadow root and its styles', async () => {
    const root = page();
    const { client } = newClient(acmeServer());
    act(() => client.mountLogin(mountOptions()));
    const el = root.querySelector('stytch-b2b-ui')!;
    expect(el).toBeTruthy();
    expect(el.shadowRoot?.mode).toBe('open');
    const css = el.shadowRoot!.querySelector('style[data-latchkey]')?.textContent ?? '';
    expect(css).toContain(':host');
    expect(css).toContain('all: initial');
    expect(await within(widgetRoot(el)).findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
  });

  it('mounting again re-renders the same widget with the new options', async () => {
    const root = page();
    const { client } = newClient(acmeServer());
    act(() => client.mountLogin(mountOptions()));
    const first = root.querySelector('stytch-b2b-ui')!;
    await within(widgetRoot(first)).findByRole('heading', { name: 'Continue to Acme' });
    act(() => client.mountLogin(mountOptions({ strings: { 'main.title.organization': 'Welcome to {organizationName}' } })));
    expect(root.querySelectorAll('stytch-b2b-ui')).toHaveLength(1);
    expect(root.querySelector('stytch-b2b-ui')).toBe(first);
    expect(await within(widgetRoot(first)).findByRole('heading', { name: 'Welcome to Acme' })).toBeTruthy();
  });

  it('dispatches stytch-event from the element and unmounts on request', async () => {
    const root = page();
    const { client } = newClient(acmeServer());
    const seen: unknown[] = [];
    document.body.addEventListener('stytch-event', (e) => seen.push((e as CustomEvent).detail.type));
    act(() => client.mountLogin(mountOptions()));
    await waitFor(() => expect(seen).toContain('B2B_ORGANIZATIONS_GET_BY_SLUG'));
    act(() => client.unmount('#root'));
    expect(root.querySelector('stytch-b2b-ui')).toBeNull();
  });

  it('reports instantiation and the render to telemetry in one batch without credentials', async () => {
    page();
    const server = acmeServer();
    const { client, clock } = newClient(server);
    act(() => client.mountLogin(mountOptions()));
    await waitFor(() => expect(server.callsTo('/b2b/organizations/search')).toHaveLength(1));
    act(() => clock.advance(800));
    const [call] = server.callsTo('/events');
    expect(call).toBeTruthy();
    expect(call!.headers.Authorization).toBeUndefined();
    const batch = call!.body as { event: { event_name: string; public_token: string; details: Record<string, unknown> } }[];
    expect(batch.map((e) => e.event.event_name)).toEqual(['b2b_sdk_instance_instantiated', 'render_b2b_login_screen']);
    expect(batch[1]!.event.public_token).toBe(TOKEN);
    expect(batch[1]!.event.details.options).toEqual(mountOptions().config);
    expect(batch[1]!.event.details.bootstrap).toMatchObject({ projectName: 'Latchkey Demo', displayWatermark: false });
  });

  it('shows the watermark when the project does not disable it', async () => {
    const root = page();
    const { client } = newClient(acmeServer({ disable_sdk_watermark: false }));
    act(() => client.mountLogin(mountOptions()));
    expect(await within(widgetRoot(root.firstElementChild!)).findByText('Powered by Latchkey')).toBeTruthy();
  });
});

describe('mountIdentityProvider', () => {
  it('asks to log in when there is no session', async () => {
    window.history.replaceState(null, '', '/authorize?client_id=connected-app-test-1&redirect_uri=https%3A%2F%2Frp.test%2Fcb');
    const root = page();
    const { client } = newClient(acmeServer());
    act(() => client.mountIdentityProvider({ elementId: '#root' }));
    const el = root.querySelector('stytch-b2b-identity-provider')!;
    expect(el.shadowRoot?.mode).toBe('open');
    expect(await within(widgetRoot(el)).findByText('No active session detected. Please log in to continue.')).toBeTruthy();
    expect(within(widgetRoot(el)).queryByRole('button')).toBeNull();
    window.history.replaceState(null, '', '/');
  });

  it('names a missing required parameter', async () => {
    window.history.replaceState(null, '', '/authorize?client_id=connected-app-test-1');
    const root = page();
    const { client } = newClient(acmeServer());
    act(() => client.mountIdentityProvider({ elementId: '#root' }));
    expect(
      await within(widgetRoot(root.firstElementChild!)).findByText(
        'Required parameter is missing: redirect_uri. Please reach out to the application developer.',
      ),
    ).toBeTruthy();
    window.history.replaceState(null, '', '/');
  });
});

describe('B2BClient', () => {
  it('defaults the ESM base URL to the page origin and warns about a second client', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const fetch = async () => new Response('{}', { status: 404 });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const a = new B2BClient('public-token-test-other', { fetch });
    expect(a.baseURL).toBe(window.location.origin);
    expect(warn).not.toHaveBeenCalled();
    const b = new B2BClient('public-token-test-other', { baseURL: 'https://auth.example.test/', fetch });
    expect(b.baseURL).toBe('https://auth.example.test');
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('another B2BClient'));
  });

  it('rejects a missing public token', () => {
    expect(() => new B2BClient('' as string)).toThrow(/public token/);
  });

  it('the IIFE client defaults its base URL to the origin of the script that loaded it', async () => {
    const script = document.createElement('script');
    script.src = 'https://auth.example.test:8443/widget/latchkey.js';
    Object.defineProperty(document, 'currentScript', { value: script, configurable: true });
    vi.resetModules();
    try {
      const iife = await import('./iife');
      vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const client = new iife.B2BClient('public-token-test-iife', { fetch: async () => new Response('{}', { status: 404 }) });
      expect(client.baseURL).toBe('https://auth.example.test:8443');
      expect(iife.B2BProducts.emailOtp).toBe('emailOtp');
      expect(iife.AuthFlowType.Organization).toBe('Organization');
    } finally {
      delete (document as { currentScript?: unknown }).currentScript;
    }
  });
});
