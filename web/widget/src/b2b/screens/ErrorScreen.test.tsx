import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BOOTSTRAP } from '../../api/bootstrap';
import { systemClock } from '../../clock';
import { createTranslator, mergeStrings } from '../../strings/t';
import { normalizeConfig } from '../config';
import { LoginContext } from '../context';
import { LoginController, type LoginBackend } from '../controller';
import { initialState } from '../state/reducer';
import { createStore } from '../state/store';
import { ErrorType, Screen } from '../state/types';
import { ErrorScreen } from './ErrorScreen';
import { apiError } from '../../test/fakeServer';
import { acmeServer, renderLogin } from '../../test/harness';

function renderError(type: ErrorType, canGoBack: boolean) {
  const store = createStore(initialState('Organization'));
  store.dispatch({ type: 'errorOccurred', errorType: type, canGoBack });
  const t = createTranslator(mergeStrings());
  const config = normalizeConfig({ products: ['emailOtp'] });
  const controller = new LoginController({
    // The error screen performs no I/O; an unusable backend proves it.
    backend: {} as LoginBackend,
    store,
    getConfig: () => config,
    getRawConfig: () => ({}),
    getTranslate: () => t,
    emit: { event: () => undefined, error: () => undefined },
  });
  const view = () => (
    <LoginContext.Provider
      value={{ state: store.getState(), controller, config, t, bootstrap: DEFAULT_BOOTSTRAP, clock: systemClock, presentation: { logoImageUrl: null, hideHeaderText: false } }}
    >
      <ErrorScreen />
    </LoginContext.Provider>
  );
  const utils = render(view());
  return { store, rerender: () => utils.rerender(view()) };
}

describe('Error screen', () => {
  it('shows title, icon and the default message, with back when allowed', () => {
    const { store } = renderError(ErrorType.Default, true);
    expect(screen.getByRole('heading', { name: 'Looks like there was an error!' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Error' })).toBeTruthy();
    expect(screen.getByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Go back' }));
    expect(store.getState().screen).toBe(Screen.Main);
  });

  it.each([
    [ErrorType.EmailMagicLink, /login link may have expired/],
    [ErrorType.Organization, /could not be found/],
    [ErrorType.CannotJoinOrgDueToAuthPolicy, /authentication policy/],
    [ErrorType.AdBlockerDetected, /ad blocker/],
    [ErrorType.OrganizationDiscoveryClaimedDomain, /email domain is claimed/],
  ])('%s has its own message and no back button when not allowed', (type, text) => {
    renderError(type, false);
    expect(screen.getByText(text)).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });

  // The title takes focus when the screen opens; the message must be read with it.
  it('the title describes itself with the message (aria-describedby)', () => {
    renderError(ErrorType.Organization, false);
    const heading = screen.getByRole('heading', { name: 'Looks like there was an error!' });
    const ids = (heading.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
    expect(ids.map((id) => document.getElementById(id)?.textContent)).toEqual([
      'The organization you are looking for could not be found. If you think this is a mistake, contact your admin.',
    ]);
  });

  it('in the widget, focus lands on the title, whose description is the message', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=used');
    const ui = renderLogin(acmeServer().on('POST', '/b2b/magic_links/authenticate', apiError(401, 'unable_to_auth_magic_link')));
    const heading = await ui.findByRole('heading', { name: 'Looks like there was an error!' });
    const shadow = ui.root.getRootNode() as ShadowRoot;
    await waitFor(() => expect(shadow.activeElement).toBe(heading));
    const id = heading.getAttribute('aria-describedby') ?? '';
    expect(shadow.getElementById(id)?.textContent).toBe(
      'Your login link may have expired, been revoked, or been used more than once. Request a new login link to try again.',
    );
  });
});
