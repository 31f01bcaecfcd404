import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ACME, apiError, json } from '../../test/fakeServer';
import { acmeServer, renderLogin } from '../../test/harness';

describe('Main screen (Organization flow)', () => {
  it('shows a spinner while the organization loads, then "Continue to Acme" and the email form', async () => {
    let release: () => void = () => undefined;
    const server = acmeServer().on('POST', '/b2b/organizations/search', () => new Promise((r) => (release = () => r(json({ organization: ACME })))));
    const ui = renderLogin(server);
    // The spinner's label is said in the widget's status region (the spinner itself is hidden).
    await waitFor(() => expect(ui.root.querySelector('p.lk-visually-hidden[aria-live]:not([role])')?.textContent).toBe('Loading organization'));
    expect(ui.getByRole('heading').textContent).toBe('Continue to ...');
    release();
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
    const input = ui.getByLabelText('Email') as HTMLInputElement;
    expect(input.id).toBe('email-input');
    expect(input.required).toBe(true);
    expect(ui.getByRole('button', { name: 'Continue with email' })).toBeTruthy();
    expect(server.callsTo('/b2b/organizations/search')[0]!.body).toEqual({ organization_slug: 'acme' });
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'B2B_ORGANIZATIONS_GET_BY_SLUG', data: { organization: ACME } });
  });

  it('shows the organization logo', async () => {
    const ui = renderLogin(acmeServer({}, { ...ACME, organization_logo_url: 'https://cdn.test/acme.png' }));
    const logo = (await ui.findByAltText('Acme logo')) as HTMLImageElement;
    expect(logo.src).toBe('https://cdn.test/acme.png');
  });

  it('shows the application logo and can hide the header text visually', async () => {
    const ui = renderLogin(acmeServer(), { styles: { logo: { logoImageUrl: 'https://cdn.test/app.svg' }, hideHeaderText: true } });
    const heading = await ui.findByRole('heading', { name: 'Continue to Acme' });
    expect(heading.className).toContain('lk-visually-hidden');
    expect((ui.getByAltText('Application logo') as HTMLImageElement).src).toBe('https://cdn.test/app.svg');
  });

  it('derives the slug from the bootstrap slug pattern', async () => {
    window.history.replaceState(null, '', '/orgs/acme/login?x=1');
    const server = acmeServer({ slug_pattern: 'localhost:3000/orgs/{{slug}}/login' });
    const ui = renderLogin(server, { config: { products: ['emailOtp'] } });
    await ui.findByRole('heading', { name: 'Continue to Acme' });
    expect(server.callsTo('/b2b/organizations/search')[0]!.body).toEqual({ organization_slug: 'acme' });
  });

  it('without a slug shows the Organization error and no back button', async () => {
    const server = acmeServer();
    const ui = renderLogin(server, { config: { products: ['emailOtp'] } });
    expect(await ui.findByRole('heading', { name: 'Looks like there was an error!' })).toBeTruthy();
    expect(ui.getByText(/organization you are looking for could not be found/)).toBeTruthy();
    expect(ui.queryByRole('button')).toBeNull();
    expect(server.callsTo('/b2b/organizations/search')).toHaveLength(0);
    expect(ui.onError).toHaveBeenCalled();
  });

  it('an unknown slug (null organization) shows the Organization error', async () => {
    const ui = renderLogin(acmeServer({}, null));
    expect(await ui.findByText(/organization you are looking for could not be found/)).toBeTruthy();
    expect(ui.queryByRole('button', { name: 'Go back' })).toBeNull();
  });

  // Nothing else decides the screen here: a failed lookup is the Error screen, as before.
  it('a failed lookup shows the default error without back, and reports it', async () => {
    const ui = renderLogin(acmeServer().on('POST', '/b2b/organizations/search', apiError(503, 'internal_server_error')));
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    expect(ui.queryByRole('button')).toBeNull();
    expect(ui.onError).toHaveBeenCalledTimes(1);
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'internal_server_error', status_code: 503 }));
  });

  it('rejects an invalid email without calling the server', async () => {
    const server = acmeServer();
    const ui = renderLogin(server);
    const input = await ui.findByLabelText('Email');
    fireEvent.change(input, { target: { value: 'ada@acme' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
    expect(ui.getByRole('alert').textContent).toBe('Invalid email address');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(server.calls.filter((c) => c.path.includes('login_or_signup'))).toHaveLength(0);
  });

  it('sends the code directly when the organization allows only email OTP', async () => {
    const server = acmeServer({}, { ...ACME, auth_methods: 'RESTRICTED', allowed_auth_methods: ['email_otp'] })
      .on('POST', '/b2b/otps/email/login_or_signup', json({}));
    const ui = renderLogin(server);
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
    expect(await ui.findByRole('heading', { name: 'Enter passcode' })).toBeTruthy();
    expect(server.callsTo('/b2b/otps/email/login_or_signup')[0]!.body).toEqual({
      organization_id: ACME.organization_id,
      email_address: 'ada@acme.test',
    });
    expect(server.callsTo('/b2b/magic_links/email/login_or_signup')).toHaveLength(0);
  });

  it('shows the access message under the field for JIT provisioning errors', async () => {
    const server = acmeServer().on('POST', '/b2b/magic_links/email/login_or_signup', apiError(403, 'email_jit_provisioning_not_allowed'));
    const ui = renderLogin(server, { config: { products: ['emailMagicLinks'], organizationSlug: 'acme' } });
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'eve@other.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
    await waitFor(() =>
      expect(ui.getByRole('alert').textContent).toBe(
        'eve@other.test does not have access to Acme. If you think this is a mistake, contact your admin.',
      ),
    );
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'email_jit_provisioning_not_allowed', status_code: 403 }));
  });

  it('holds the button (aria-disabled, keeping focus) with a spinner while sending', async () => {
    let release: () => void = () => undefined;
    const server = acmeServer().on('POST', '/b2b/magic_links/email/login_or_signup', () => new Promise((r) => (release = () => r(json({})))));
    const ui = renderLogin(server, { config: { products: ['emailMagicLinks'], organizationSlug: 'acme' } });
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
    const button = await waitFor(() => {
      const b = ui.getByRole('button', { name: 'Continue with email' }) as HTMLButtonElement;
      expect(b.getAttribute('aria-disabled')).toBe('true');
      return b;
    });
    expect(button.disabled).toBe(false);
    expect(button.getAttribute('aria-busy')).toBe('true');
    // Enter in the field, or another press, sends nothing more.
    fireEvent.click(button);
    expect(server.callsTo('/b2b/magic_links/email/login_or_signup')).toHaveLength(1);
    release();
    expect(await ui.findByRole('heading', { name: 'Check your email' })).toBeTruthy();
  });

  it('applies string overrides', async () => {
    const ui = renderLogin(acmeServer(), {
      strings: { 'main.title.organization': 'Sign in to {organizationName}', 'email.continue': 'Next' },
    });
    expect(await ui.findByRole('heading', { name: 'Sign in to Acme' })).toBeTruthy();
    expect(ui.getByRole('button', { name: 'Next' })).toBeTruthy();
  });

  it('shows the discovery title in the Discovery flow without looking up an organization', async () => {
    const server = acmeServer();
    const ui = renderLogin(server, { config: { products: ['emailMagicLinks'], authFlowType: 'Discovery' } });
    expect(await ui.findByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
    await vi.waitFor(() => expect(server.calls.length).toBeGreaterThan(0));
    expect(server.callsTo('/b2b/organizations/search')).toHaveLength(0);
  });
});
