import { waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACME, apiError, json } from '../test/fakeServer';
import { acmeServer, renderLogin } from '../test/harness';
import type { LoginOptions } from './LoginApp';
import type { GsiId } from './oneTap';

type InitOptions = Parameters<GsiId['initialize']>[0];

/** Google's GSI API as the page would have it after its script loaded. */
function installGsi() {
  const gsi = { options: null as InitOptions | null, prompts: 0 };
  (window as unknown as { google: unknown }).google = {
    accounts: {
      id: {
        initialize: (o: InitOptions) => {
          gsi.options = o;
        },
        prompt: () => {
          gsi.prompts++;
        },
      },
    },
  };
  return gsi;
}

const oneTapConfig = (config: Partial<LoginOptions['config']> = {}): Partial<LoginOptions> => ({
  config: {
    products: ['emailMagicLinks', 'oauth'],
    organizationSlug: 'acme',
    oauthOptions: { providers: [{ type: 'google', one_tap: true, cancel_on_tap_outside: false }], loginRedirectURL: 'https://app.test/login' },
    ...config,
  },
});

describe('Google One Tap', () => {
  let warn: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    warn.mockRestore();
    delete (window as unknown as { google?: unknown }).google;
  });

  it('prompts with the project client id and submits the ID token for the organization, then follows redirect_url', async () => {
    const gsi = installGsi();
    const server = acmeServer()
      .on('GET', '/b2b/oauth/google/onetap/start', json({ google_client_id: 'client.apps.googleusercontent.com' }))
      .on('POST', '/b2b/oauth/google/onetap/submit', json({ redirect_url: 'https://app.test/login?stytch_token_type=oauth&token=t' }));
    const ui = renderLogin(server, oneTapConfig());
    await waitFor(() => expect(gsi.prompts).toBe(1));
    expect(gsi.options).toMatchObject({ client_id: 'client.apps.googleusercontent.com', cancel_on_tap_outside: false });
    // The normal button stays for when the browser suppresses the prompt.
    expect(await ui.findByRole('button', { name: 'Continue with Google' })).toBeTruthy();
    gsi.options!.callback({ credential: 'header.payload.signature' });
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://app.test/login?stytch_token_type=oauth&token=t'));
    expect(server.callsTo('/b2b/oauth/google/onetap/submit')[0]!.body).toEqual({
      id_token: 'header.payload.signature',
      organization_id: ACME.organization_id,
      login_redirect_url: 'https://app.test/login',
    });
  });

  it('sends a PKCE challenge when the project requires one, and uses the discovery submit in discovery', async () => {
    const gsi = installGsi();
    const server = acmeServer({ pkce_required_for_oauth: true })
      .on('GET', '/b2b/oauth/google/onetap/start', json({ google_client_id: 'cid' }))
      .on('POST', '/b2b/oauth/google/onetap/discovery/submit', json({ redirect_url: 'https://app.test/discover?token=d' }));
    const ui = renderLogin(server, oneTapConfig({ authFlowType: 'Discovery', organizationSlug: undefined }));
    await waitFor(() => expect(gsi.prompts).toBe(1));
    gsi.options!.callback({ credential: 'id-token' });
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://app.test/discover?token=d'));
    const body = server.callsTo('/b2b/oauth/google/onetap/discovery/submit')[0]!.body as Record<string, string>;
    expect(body.id_token).toBe('id-token');
    expect(body.pkce_code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('names the missing redirect URL type when the discovery submit is refused for it', async () => {
    const gsi = installGsi();
    const server = acmeServer()
      .on('GET', '/b2b/oauth/google/onetap/start', json({ google_client_id: 'cid' }))
      .on('POST', '/b2b/oauth/google/onetap/discovery/submit', apiError(400, 'no_discovery_redirect_urls_set'));
    const ui = renderLogin(server, oneTapConfig({ authFlowType: 'Discovery', organizationSlug: undefined }));
    warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await waitFor(() => expect(gsi.prompts).toBe(1));
    gsi.options!.callback({ credential: 'id-token' });
    await waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining('no discovery redirect URL')));
    expect(ui.navigate).not.toHaveBeenCalled();
  });

  it('stays off, with developer guidance, when Google is not configured', async () => {
    const gsi = installGsi();
    const server = acmeServer().on('GET', '/b2b/oauth/google/onetap/start', apiError(400, 'oauth_config_not_found'));
    const ui = renderLogin(server, oneTapConfig());
    // renderLogin restores console.warn after building its client; watch it from here on.
    warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining('Google is not configured')));
    expect(gsi.prompts).toBe(0);
    expect(await ui.findByRole('button', { name: 'Continue with Google' })).toBeTruthy();
  });

  it('shows the error screen when the server refuses the ID token', async () => {
    const gsi = installGsi();
    const server = acmeServer()
      .on('GET', '/b2b/oauth/google/onetap/start', json({ google_client_id: 'cid' }))
      .on('POST', '/b2b/oauth/google/onetap/submit', apiError(401, 'id_token_invalid'));
    const ui = renderLogin(server, oneTapConfig());
    await waitFor(() => expect(gsi.prompts).toBe(1));
    gsi.options!.callback({ credential: 'bad' });
    expect(await ui.findByText(/Something went wrong/)).toBeTruthy();
    expect(ui.navigate).not.toHaveBeenCalled();
  });

  // A hostile or broken server (or a proxy) must not make the widget run script in the page: only an
  // https or http redirect_url is followed (project redirect URLs are nothing else); any other answer
  // is a bad one: the error screen, and the reported error names the bad answer.
  it.each([
    'javascript:alert(document.domain)',
    ' JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'com.example.app:/cb',
    '/login?token=t',
  ])('never follows the redirect_url %j', async (redirect_url) => {
    const gsi = installGsi();
    const server = acmeServer()
      .on('GET', '/b2b/oauth/google/onetap/start', json({ google_client_id: 'cid' }))
      .on('POST', '/b2b/oauth/google/onetap/submit', json({ redirect_url }));
    const ui = renderLogin(server, oneTapConfig());
    await waitFor(() => expect(gsi.prompts).toBe(1));
    gsi.options!.callback({ credential: 'header.payload.signature' });
    expect(await ui.findByText(/Something went wrong/)).toBeTruthy();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'Invalid response from our servers.' }));
    expect(ui.navigate).not.toHaveBeenCalled();
  });

  it('floating One Tap only: no form at all', async () => {
    const gsi = installGsi();
    const server = acmeServer().on('GET', '/b2b/oauth/google/onetap/start', json({ google_client_id: 'cid' }));
    const ui = renderLogin(server, oneTapConfig({ products: ['oauth'] }));
    await waitFor(() => expect(gsi.prompts).toBe(1));
    expect(ui.root.querySelector('.lk-screen')).toBeNull();
    expect(ui.queryByRole('button')).toBeNull();
  });
});
