/** The identity-provider widget's one reducer: which screen shows, and what it shows. */
import type { AuthorizeStartResponse } from '../api/idp';

export type IdpState =
  | { screen: 'loading' }
  /**
   * logInAgain is set when the session is too old for the request (prompt=login, max_age: the
   * server's login_required): the error offers to end it so the member can log in again.
   */
  | { screen: 'error'; message: string; logInAgain: { busy: boolean } | null }
  | { screen: 'noSession' }
  | { screen: 'consent'; start: AuthorizeStartResponse; busy: 'allow' | 'deny' | null; error: string | null }
  | { screen: 'redirecting'; denied: boolean }
  | { screen: 'logoutConfirm'; redirectURI: string; busy: boolean; error: string | null }
  | { screen: 'notLoggedOut' }
  /** Consent or the logout confirmation was due while the page is framed: neither is shown. */
  | { screen: 'framed' };

export type IdpAction =
  | { type: 'failed'; message: string }
  | { type: 'loading' }
  | { type: 'noSession' }
  | { type: 'loginRequired'; message: string }
  | { type: 'endingSession' }
  /**
   * framed: the page is inside a frame (inFrame). A screen that asks the member to decide is never
   * shown there (RFC 9700 4.16, clickjacking: a page framing it could overlay it and have the member
   * press Allow or Yes unknowingly); the framing page may be anyone's, as the operator's page hosts
   * these screens and the server's frame-ancestors does not cover it.
   */
  | { type: 'consent'; start: AuthorizeStartResponse; framed: boolean }
  | { type: 'submitting'; choice: 'allow' | 'deny' }
  | { type: 'actionFailed'; message: string }
  | { type: 'redirecting'; denied: boolean }
  | { type: 'confirmLogout'; redirectURI: string; framed: boolean }
  | { type: 'loggingOut' }
  | { type: 'stayLoggedIn' };

export const initialIdpState: IdpState = { screen: 'loading' };

export function idpReducer(state: IdpState, action: IdpAction): IdpState {
  switch (action.type) {
    case 'failed':
      return { screen: 'error', message: action.message, logInAgain: null };
    case 'loading':
      return { screen: 'loading' };
    case 'noSession':
      return { screen: 'noSession' };
    case 'loginRequired':
      return { screen: 'error', message: action.message, logInAgain: { busy: false } };
    case 'endingSession':
      return state.screen === 'error' && state.logInAgain ? { ...state, logInAgain: { busy: true } } : state;
    case 'consent':
      if (action.framed) return { screen: 'framed' };
      return { screen: 'consent', start: action.start, busy: null, error: null };
    case 'submitting':
      return state.screen === 'consent' ? { ...state, busy: action.choice, error: null } : state;
    case 'actionFailed':
      if (state.screen === 'consent') return { ...state, busy: null, error: action.message };
      if (state.screen === 'logoutConfirm') return { ...state, busy: false, error: action.message };
      return { screen: 'error', message: action.message, logInAgain: null };
    case 'redirecting':
      return { screen: 'redirecting', denied: action.denied };
    case 'confirmLogout':
      if (action.framed) return { screen: 'framed' };
      return { screen: 'logoutConfirm', redirectURI: action.redirectURI, busy: false, error: null };
    case 'loggingOut':
      return state.screen === 'logoutConfirm' ? { ...state, busy: true, error: null } : state;
    case 'stayLoggedIn':
      return { screen: 'notLoggedOut' };
  }
}
