import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { codeChallengeFor } from '../../api/pkce';
import { ACME, apiError, json } from '../../test/fakeServer';
import { acmeServer, renderLogin, tick, TOKEN } from '../../test/harness';

const SEND_LINK = '/b2b/magic_links/email/login_or_signup';
const SEND_CODE = '/b2b/otps/email/login_or_signup';

async function submitEmail(ui: ReturnType<typeof renderLogin>, email = 'ada@acme.test') {
  fireEvent.change(await ui.findByLabelText('Email'), { target: { value: email } });
  fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
}

describe('email method selection', () => {
  it('offers a link or a code when both are enabled, and goes back to Main with the email kept', async () => {
    const server = acmeServer();
    const ui = renderLogin(server);
    await submitEmail(ui);
    expect(await ui.findByRole('button', { name: 'Email me a link' })).toBeTruthy();
    expect(ui.getByRole('button', { name: 'Email me a code' })).toBeTruthy();
    expect(ui.getByText(/ada@acme\.test/)).toBeTruthy();
    // Nothing is sent until the member chooses.
    expect(server.calls.filter((c) => c.path === SEND_LINK || c.path === SEND_CODE)).toHaveLength(0);
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(((await ui.findByLabelText('Email')) as HTMLInputElement).value).toBe('ada@acme.test');
  });

  it('"Email me a link" sends the magic link with the configured options and shows the confirmation', async () => {
    const server = acmeServer().on('POST', SEND_LINK, json({}));
    const ui = renderLogin(server, {
      config: {
        products: ['emailMagicLinks', 'emailOtp'],
        organizationSlug: 'acme',
        emailMagicLinksOptions: { loginRedirectURL: 'https://app.test/auth', signupRedirectURL: 'https://app.test/signup', locale: 'en' },
      },
    });
    await submitEmail(ui);
    fireEvent.click(await ui.findByRole('button', { name: 'Email me a link' }));
    expect(await ui.findByRole('heading', { name: 'Check your email' })).toBeTruthy();
    expect(ui.getByText(/An email was sent to ada@acme\.test/)).toBeTruthy();
    // Outside links open the webmail searches (spec section 7), in a new tab.
    const mail = ui.getByRole('navigation', { name: 'Open your mailbox' });
    const links = Array.from(mail.querySelectorAll('a'));
    expect(links.map((a) => [a.textContent, new URL(a.href).host, a.target, a.rel])).toEqual([
      ['Open Gmail', 'mail.google.com', '_blank', 'noopener noreferrer'],
      ['Open Yahoo Mail', 'mail.yahoo.com', '_blank', 'noopener noreferrer'],
      ['Open Outlook', 'outlook.live.com', '_blank', 'noopener noreferrer'],
    ]);
    expect(server.callsTo(SEND_LINK)[0]!.body).toEqual({
      email_address: 'ada@acme.test',
      organization_id: ACME.organization_id,
      login_redirect_url: 'https://app.test/auth',
      signup_redirect_url: 'https://app.test/signup',
      locale: 'en',
    });
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'B2B_MAGIC_LINK_EMAIL_LOGIN_OR_SIGNUP', data: { email_address: 'ada@acme.test' } });
    // Back returns to the selection screen it came from.
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(await ui.findByRole('button', { name: 'Email me a link' })).toBeTruthy();
  });

  it('shows a send failure under the buttons and stays on the screen', async () => {
    const server = acmeServer().on('POST', SEND_CODE, apiError(429, 'too_many_requests', 'Too many requests.'));
    const ui = renderLogin(server);
    await submitEmail(ui);
    fireEvent.click(await ui.findByRole('button', { name: 'Email me a code' }));
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Too many requests.'));
    expect(ui.getByRole('button', { name: 'Email me a code' })).toBeTruthy();
  });
});

describe('magic link with PKCE', () => {
  it('sends a challenge that matches the verifier stored for the redirect', async () => {
    const server = acmeServer({ pkce_required_for_email_magic_links: true }).on('POST', SEND_LINK, json({}));
    const ui = renderLogin(server, { config: { products: ['emailMagicLinks'], organizationSlug: 'acme' } });
    await submitEmail(ui);
    await ui.findByRole('heading', { name: 'Check your email' });
    const stored = JSON.parse(localStorage.getItem(`stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:magic_links`)!);
    const sent = server.callsTo(SEND_LINK)[0]!.body as Record<string, string>;
    expect(sent.pkce_code_challenge).toBe(stored.code_challenge);
    expect(await codeChallengeFor(stored.code_verifier)).toBe(stored.code_challenge);
  });
});

describe('email confirmation resend', () => {
  it('resends the link and shows "Email sent" for 2 seconds', async () => {
    const server = acmeServer().on('POST', SEND_LINK, json({}));
    const ui = renderLogin(server, { config: { products: ['emailMagicLinks'], organizationSlug: 'acme' } });
    await submitEmail(ui);
    fireEvent.click(await ui.findByRole('button', { name: 'Resend email' }));
    const sent = await ui.findByRole('button', { name: 'Email sent' });
    expect(sent.getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(sent);
    expect(server.callsTo(SEND_LINK)).toHaveLength(2);
    tick(ui.clock, 1999);
    expect(ui.getByRole('button', { name: 'Email sent' })).toBeTruthy();
    tick(ui.clock, 1);
    expect(ui.getByRole('button', { name: 'Resend email' })).toBeTruthy();
  });
});
