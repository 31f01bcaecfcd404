import { fireEvent, render, screen } from '@testing-library/react';
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
});
