import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { acmeServer, renderLogin } from '../../test/harness';
import { importPart } from '../parts';

const DEFAULT_TEXT = 'Something went wrong. Try again later or contact your admin for help.';

describe('the SSO discovery part', () => {
  it('a failed download is an inline error on the button; the next click loads it again', async () => {
    const load = vi.spyOn(importPart, 'ssoDiscovery').mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module'));
    const ui = renderLogin(acmeServer(), { config: { products: ['emailOtp', 'sso'], authFlowType: 'Discovery' } });
    const button = await ui.findByRole('button', { name: 'Continue with SSO' });
    fireEvent.click(button);
    expect(await ui.findByText(DEFAULT_TEXT)).toBeTruthy();
    expect(ui.getByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
    await waitFor(() => expect(button.getAttribute('aria-disabled')).toBeNull());
    expect((button as HTMLButtonElement).disabled).toBe(false);

    fireEvent.click(button);
    expect(await ui.findByRole('heading', { name: 'Log in with single sign-on' })).toBeTruthy();
    expect(load).toHaveBeenCalledTimes(2);
  });
});
