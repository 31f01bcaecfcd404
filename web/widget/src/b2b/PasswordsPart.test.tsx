import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { json } from '../test/fakeServer';
import { acmeServer, renderLogin } from '../test/harness';
import { importPart } from './parts';

const SEARCH = '/b2b/organizations/members/search';
const DEFAULT_TEXT = 'Something went wrong. Try again later or contact your admin for help.';
const MEMBER = { status: 'active', name: 'Ada', member_password_id: 'member-password-test-1' };
const config = (products: ('passwords' | 'emailOtp')[]) => ({ config: { products, organizationSlug: 'acme' } });

describe('the passwords part', () => {
  it('is fetched as soon as the widget is up when passwords are configured, before any click', async () => {
    const load = vi.spyOn(importPart, 'passwords');
    const ui = renderLogin(acmeServer(), config(['passwords']));
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
    await waitFor(() => expect(load).toHaveBeenCalledTimes(1));
  });

  it('is not fetched where passwords are not configured', async () => {
    const load = vi.spyOn(importPart, 'passwords');
    const ui = renderLogin(acmeServer(), config(['emailOtp']));
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
    expect(await ui.findByLabelText('Email')).toBeTruthy();
    expect(load).not.toHaveBeenCalled();
  });

  it('a failed download is an inline error on Continue, nothing is sent, and the next click loads it again', async () => {
    const failed = () => Promise.reject(new TypeError('Failed to fetch dynamically imported module'));
    // The preload fails, then the first click's load.
    const load = vi.spyOn(importPart, 'passwords').mockImplementationOnce(failed).mockImplementationOnce(failed);
    const server = acmeServer().on('POST', SEARCH, json({ member: MEMBER }));
    const ui = renderLogin(server, config(['passwords']));
    await waitFor(() => expect(load).toHaveBeenCalledTimes(1));
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    const button = ui.getByRole('button', { name: 'Continue' });
    fireEvent.click(button);
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe(DEFAULT_TEXT));
    expect(server.callsTo(SEARCH)).toHaveLength(0);
    expect(ui.onError).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(button.getAttribute('aria-disabled')).toBeNull());

    fireEvent.click(button);
    expect(await ui.findByRole('heading', { name: 'Log in with your password' })).toBeTruthy();
    expect(server.callsTo(SEARCH)).toHaveLength(1);
    expect(load).toHaveBeenCalledTimes(3);
  });
});
