/**
 * The identity-provider screens (consent and logout), loaded lazily: most pages mount only the login
 * widget, so this code stays out of the main ESM bundle. The flow runs once per mount: trusted-auth
 * attestation (if configured), then the page address decides between Authorize and Logout. An
 * authorization waiting for a login (no session, or one too old for the request) goes on once the
 * member has logged in on the same client.
 */
import { useEffect, useLayoutEffect, useReducer, useRef, type ReactNode, type RefObject } from 'react';
import { APIError, navigable } from '../api/errors';
import {
  authorizeStart,
  authorizeSubmit,
  logoutStart,
  sessionsAttest,
  type AuthorizeBody,
  type AuthorizeStartResponse,
  type ScopeResult,
} from '../api/idp';
import type { BootstrapData } from '../api/bootstrap';
import { errorMessage, errorPayload } from '../b2b/errorMessages';
import type { Translate } from '../strings/t';
import { Button } from '../ui/Button';
import { ErrorText } from '../ui/ErrorText';
import { Heading } from '../ui/Heading';
import { Spinner } from '../ui/Spinner';
import type { ConsentManifest, IdentityProviderOptions, IdpBackend } from './IdentityProviderApp';
import { readIdpRequest } from './params';
import { idpTranslator, type IdpStringKey, type IdpTranslate } from './strings';
import { idpReducer, initialIdpState, type IdpState } from './state';

const BUILTIN_SCOPES = ['openid', 'profile', 'email', 'phone', 'offline_access', 'full_access'];
const ATTESTED_SESSION_MINUTES = 60;

interface Props {
  backend: IdpBackend;
  options: IdentityProviderOptions;
  t: Translate;
  search: string;
  bootstrap: BootstrapData;
  /** The element the screens render in. */
  screenRef: RefObject<HTMLElement | null>;
}

export default function IdpScreens({ backend, options, t, search, bootstrap, screenRef }: Props) {
  const [state, dispatch] = useReducer(idpReducer, initialIdpState);
  const { pressed, loggedIn } = useFocusAfterPress(screenRef, state.screen);
  const it = idpTranslator(options.strings);
  const request = readIdpRequest(search);
  const onEvent = (type: string, data: unknown) => options.callbacks?.onEvent?.({ type, data });
  // The server's error_message, not the login screens' catalogue text for its error_type (spec:
  // "preflight error shows the server's error_message"); it names what is wrong with the request.
  // Without one, the login screens' text.
  const fail = (err: unknown) => {
    const message = (err instanceof APIError && err.error_message) || errorMessage(err, t);
    options.callbacks?.onError?.(errorPayload(err, message));
    return message;
  };
  // Leaves for a redirect URI the server answered, checked first (navigable: a bad one fails where
  // it is called, as any bad answer); `refused` when the member denied consent.
  const leave = (url: string, refused: boolean) => {
    navigable(url, true);
    dispatch({ type: 'redirecting', denied: refused && new URL(url).searchParams.get('error') === 'access_denied' });
    backend.navigate(url);
  };
  // The screen as the session listener sees it (it is subscribed once, at mount).
  const screen = useRef(state.screen);
  screen.current = state.screen;

  const submit = async (body: AuthorizeBody, granted: boolean) => {
    const resp = await authorizeSubmit(backend.http, { ...body, consent_granted: granted });
    onEvent('IDP_OAUTH_AUTHORIZE_SUBMIT', resp);
    leave(resp.redirect_uri, !granted);
  };

  // An authorization from its preflight: without a session the page's login comes first; a session
  // that authenticated too long ago for prompt=login or max_age must log in again (OIDC Core
  // 3.1.2.1); otherwise consent, or an immediate submit.
  const authorize = async (body: AuthorizeBody, live: () => boolean) => {
    if (!backend.session.getSync()) {
      dispatch({ type: 'noSession' });
      return;
    }
    let start: AuthorizeStartResponse;
    try {
      start = await authorizeStart(backend.http, body);
    } catch (err) {
      if (!(err instanceof APIError && err.error_type === 'login_required')) throw err;
      // The preflight error as any other (the server's error_message), plus a way to log in again.
      if (live()) dispatch({ type: 'loginRequired', message: fail(err) });
      return;
    }
    if (!live()) return;
    onEvent('IDP_OAUTH_AUTHORIZE_START', start);
    if (start.consent_required) dispatch({ type: 'consent', start, framed: inFrame() });
    else await submit(body, false);
  };

  useEffect(() => {
    let cancelled = false;
    const run = async () => {
      await attestOnce(backend, options, onEvent, fail);
      if (cancelled) return;
      if (request.flow === 'invalid') {
        dispatch({ type: 'failed', message: it('idp.missingParam', { name: request.missing }) });
        return;
      }
      if (request.flow === 'logout') {
        const resp = await logoutStart(backend.http, request.body);
        if (cancelled) return;
        if (resp.consent_required) dispatch({ type: 'confirmLogout', redirectURI: resp.redirect_uri, framed: inFrame() });
        else await logOut(resp.redirect_uri);
        return;
      }
      // prompt=none may not show a screen, so it goes straight to submit, whose answer is always for
      // the client: a code, or login_required (no session, or one that expired since the cookie was
      // written) or consent_required.
      if (request.body.prompt === 'none') {
        await submit(request.body, false);
        return;
      }
      await authorize(request.body, () => !cancelled);
    };
    run().catch((err: unknown) => {
      if (!cancelled) dispatch({ type: 'failed', message: fail(err) });
    });
    // Once the member has logged in on this client (the page's login, shown without a session), the
    // authorization goes on from its preflight: once per login, and only while it waits for one.
    const off = backend.session.onChange((snapshot) => {
      if (!snapshot || request.flow !== 'authorize' || screen.current !== 'noSession') return;
      loggedIn();
      screen.current = 'loading';
      dispatch({ type: 'loading' });
      authorize(request.body, () => !cancelled).catch((err: unknown) => {
        if (!cancelled) dispatch({ type: 'failed', message: fail(err) });
      });
    });
    return () => {
      cancelled = true;
      off();
    };
    // The request comes from the page address at mount; the flow runs once.
  }, [backend]);

  // Always ends on the app's redirect URI (or the provider's logged-out page, which end_session names
  // when the app named none): without a session nothing is revoked, and a failed revoke is only
  // reported, its forced clear having logged the member out here already.
  const logOut = async (redirectURI: string) => {
    await revokeReporting(backend, fail);
    onEvent('IDP_OAUTH_LOGOUT', { redirect_uri: redirectURI });
    leave(redirectURI, false);
  };

  // Logging in again starts from no session: the too-old one ends (forced clear), then the page's
  // login takes over and the authorization goes on once the member is back.
  const logInAgain = () => {
    pressed();
    dispatch({ type: 'endingSession' });
    void revokeReporting(backend, fail).then(() => dispatch({ type: 'noSession' }));
  };

  const decide = (granted: boolean) => {
    if (request.flow !== 'authorize') return;
    pressed();
    dispatch({ type: 'submitting', choice: granted ? 'allow' : 'deny' });
    submit(request.body, granted).catch((err: unknown) => dispatch({ type: 'actionFailed', message: fail(err) }));
  };

  return render(state, { t, it, backend, options, request, decide, logOut, logInAgain, dispatch, fail, bootstrap, pressed });
}

/**
 * Whether this page is inside a frame. Comparing the two windows is allowed across origins. Only the
 * screens that ask for a decision depend on it (idpReducer): prompt=none, an authorization that needs
 * no consent and a logout that needs no confirmation show nothing to click, and work framed.
 */
function inFrame(): boolean {
  return window.top !== window.self;
}

/**
 * Deny, No and Log in again replace the whole screen, so the focus the pressed button held would
 * fall to the page (WCAG 2.4.3). Call `pressed` when such a button is pressed: once the screen
 * changes, its heading or message takes the focus, which also has a screen reader read the message
 * (it arrives with its text, too late for a live region). Only a press that held the focus moves it,
 * so the host page's focus is never taken. `loggedIn` does the same for the screen that follows a
 * login in the page's login widget (consent), when the focus is still in that widget.
 * A screen with neither heading nor message (a spinner) passes the focus on to the next one.
 */
function useFocusAfterPress(container: RefObject<HTMLElement | null>, screen: IdpState['screen']) {
  const pending = useRef(false);
  useLayoutEffect(() => {
    if (!pending.current) return;
    const target = container.current?.querySelector<HTMLElement>('[data-lk-heading], [data-lk-message]');
    if (!target) return;
    pending.current = false;
    target.focus();
  }, [container, screen]);
  const pressed = () => {
    const root = container.current;
    const active = root ? (root.getRootNode() as Document | ShadowRoot).activeElement : null;
    pending.current = root !== null && active !== null && root.contains(active);
  };
  const loggedIn = () => {
    pending.current = container.current !== null && focusInAWidget(container.current.ownerDocument);
  };
  return { pressed, loggedIn };
}

/**
 * Whether the page's focus is in a Latchkey widget (the login that just finished), or on <body>
 * after the member has used the page (that login's widget removed by the host). Not on load: a
 * session found then was not made here, and the host page's focus stays where it is.
 */
function focusInAWidget(doc: Document): boolean {
  const active = doc.activeElement;
  if (!active || active === doc.body) return doc.defaultView?.navigator.userActivation?.hasBeenActive === true;
  // A widget's focus shows on its shadow host; one rendered without a shadow root, on its element.
  return (active.shadowRoot?.querySelector('.lk-root') ?? active.closest('.lk-root')) !== null;
}

/**
 * The attestations started, per client and trusted auth parameters. The server refuses a trusted auth token it has
 * seen (a replay), so a second run of the flow (StrictMode runs effects twice; a re-mount) waits for
 * the first one's attestation instead of sending the token again.
 */
const attestations = new WeakMap<IdpBackend, Map<string, Promise<void>>>();

function attestOnce(...args: Parameters<typeof attestTrustedToken>): Promise<void> {
  const [backend, options] = args;
  const key = JSON.stringify(options.trustedAuthTokenParams ?? null);
  let started = attestations.get(backend);
  if (!started) attestations.set(backend, (started = new Map()));
  let attestation = started.get(key);
  if (!attestation) started.set(key, (attestation = attestTrustedToken(...args)));
  return attestation;
}

/** Trusted auth on load: end any current session, then attest one from the host's token. */
async function attestTrustedToken(
  backend: IdpBackend,
  options: IdentityProviderOptions,
  onEvent: (type: string, data: unknown) => void,
  fail: (err: unknown) => string,
) {
  const params = options.trustedAuthTokenParams;
  if (!params?.trustedAuthToken || !params.tokenProfileID) return;
  const previous = backend.session.getSync();
  // The attestation goes on even if the old session could not be revoked (spec section 4).
  await revokeReporting(backend, fail);
  try {
    const resp = await sessionsAttest(backend.http, {
      token: params.trustedAuthToken,
      profile_id: params.tokenProfileID,
      organization_id: previous?.organization.organization_id ?? params.organization_id,
      session_duration_minutes: ATTESTED_SESSION_MINUTES,
    });
    backend.session.applyAuthResponse(resp);
    onEvent('B2B_SESSION_ATTEST', resp);
  } catch (err) {
    // The flow continues either way (spec section 4); the host hears about the failure.
    fail(err);
  }
}

/**
 * Ends this browser's session, if it has one (stored state or session cookie), with a forced clear:
 * the local state goes even when the server refuses, so a failure is only reported to the host and
 * never stops the caller's flow. Without a session the server would only answer
 * user_unauthenticated, so nothing is sent.
 */
async function revokeReporting(backend: IdpBackend, fail: (err: unknown) => string): Promise<void> {
  if (!backend.session.getSync() && !backend.session.sessionToken()) return;
  try {
    await backend.session.revoke({ forceClear: true });
  } catch (err) {
    fail(err);
  }
}

interface View {
  t: Translate;
  it: IdpTranslate;
  backend: IdpBackend;
  options: IdentityProviderOptions;
  request: ReturnType<typeof readIdpRequest>;
  decide: (granted: boolean) => void;
  logOut: (redirectURI: string) => Promise<void>;
  logInAgain: () => void;
  dispatch: (a: import('./state').IdpAction) => void;
  fail: (err: unknown) => string;
  bootstrap: BootstrapData;
  /** A button that replaces the screen was pressed (see useFocusAfterPress). */
  pressed: () => void;
}

function render(state: IdpState, v: View): ReactNode {
  const { it } = v;
  const projectName = v.bootstrap.projectName;
  switch (state.screen) {
    case 'loading':
      return <Spinner label={v.t('idp.loading')} />;
    case 'error':
      return (
        <>
          <Message role="alert" className="lk-text lk-error">
            {state.message}
          </Message>
          {state.logInAgain ? (
            <Button loading={state.logInAgain.busy} onClick={v.logInAgain}>
              {it('idp.loginAgain.button')}
            </Button>
          ) : null}
        </>
      );
    case 'noSession':
      return <Message>{it('idp.noSession')}</Message>;
    case 'redirecting':
      return state.denied ? (
        <Message>{it('idp.consent.denied')}</Message>
      ) : (
        <Spinner label={it('idp.redirecting')} />
      );
    case 'notLoggedOut':
      return <Message>{it('idp.logout.notLoggedOut')}</Message>;
    case 'framed':
      return (
        <Message role="alert" className="lk-text lk-error">
          {it('idp.framed')}
        </Message>
      );
    case 'logoutConfirm':
      return (
        <>
          <Heading>{it('idp.logout.title')}</Heading>
          <p className="lk-text">
            {projectName ? it('idp.logout.message', { projectName }) : it('idp.logout.messageNoProject')}
          </p>
          <ErrorText message={state.error} />
          <div className="lk-stack">
            <Button
              loading={state.busy}
              onClick={() => {
                v.pressed();
                v.dispatch({ type: 'loggingOut' });
                v.logOut(state.redirectURI).catch((err: unknown) => v.dispatch({ type: 'actionFailed', message: v.fail(err) }));
              }}
            >
              {it('idp.logout.yes')}
            </Button>
            <Button
              variant="secondary"
              busy={state.busy}
              onClick={() => {
                v.pressed();
                v.dispatch({ type: 'stayLoggedIn' });
              }}
            >
              {it('idp.logout.no')}
            </Button>
          </div>
        </>
      );
    case 'consent':
      return <Consent state={state} v={v} projectName={projectName} />;
  }
}

/**
 * A screen's only text (no session, denied, not logged out, an error). Script can focus it, so the
 * focus of a button the screen replaced lands on it (useFocusAfterPress).
 */
function Message({ role = 'status', className = 'lk-text', children }: { role?: 'status' | 'alert'; className?: string; children: ReactNode }) {
  return (
    <p className={className} role={role} tabIndex={-1} data-lk-message="">
      {children}
    </p>
  );
}

function clientNameOf(name: string, redirectURI: string, it: IdpTranslate): string {
  if (name) return name;
  try {
    return new URL(redirectURI).host || it('idp.defaultClientName');
  } catch {
    return it('idp.defaultClientName');
  }
}

/** The consent screen: the app, what it may do, what cannot be granted, Allow and Deny. */
function Consent({ state, v, projectName }: { state: Extract<IdpState, { screen: 'consent' }>; v: View; projectName: string | null }) {
  const { it } = v;
  const { client, scope_results: results } = state.start;
  const redirectURI = v.request.flow === 'authorize' ? v.request.body.redirect_uri : '';
  const clientName = clientNameOf(client.client_name, redirectURI, it);
  const grantable = results.filter((r) => r.is_grantable);
  const blocked = results.filter((r) => !r.is_grantable);
  const manifest: ConsentManifest = v.options.getIDPConsentManifest?.({ scopes: grantable.map((r) => r.scope), clientName }) ?? [
    { header: it('idp.consent.header', { clientName }), items: grantable.map((r) => scopeText(r, it, customScopes(v.bootstrap))) },
  ];
  return (
    <>
      {client.client_logo_url ? (
        <img className="lk-logo" src={client.client_logo_url} alt={it('idp.consent.logoAlt', { clientName })} />
      ) : null}
      <Heading>
        {projectName ? it('idp.consent.title', { clientName, projectName }) : it('idp.consent.titleNoProject', { clientName })}
      </Heading>
      {manifest.map((section, i) => (
        <section key={i} className="lk-stack" aria-label={section.header}>
          <p className="lk-text lk-text--strong">{section.header}</p>
          <ul className="lk-list">
            {section.items.map((item, j) =>
              typeof item === 'string' ? (
                <li key={j}>{item}</li>
              ) : (
                <li key={j}>
                  {item.text}
                  <ul className="lk-list">{item.details.map((d, k) => <li key={k}>{d}</li>)}</ul>
                </li>
              ),
            )}
          </ul>
        </section>
      ))}
      {blocked.length > 0 ? (
        <section className="lk-stack" role="alert" aria-label={it('idp.consent.ungrantableHeader')}>
          <p className="lk-text lk-text--strong">{it('idp.consent.ungrantableHeader')}</p>
          <ul className="lk-list">
            {blocked.map((r) => (
              <li key={r.scope}>{scopeText(r, it, customScopes(v.bootstrap))}</li>
            ))}
          </ul>
          <p className="lk-text">{it('idp.consent.ungrantableHelp', { clientName })}</p>
        </section>
      ) : null}
      <ErrorText message={state.error} />
      <div className="lk-stack">
        <Button
          loading={state.busy === 'allow'}
          busy={state.busy !== null}
          disabled={blocked.length > 0}
          onClick={() => v.decide(true)}
        >
          {it('idp.consent.allow')}
        </Button>
        <Button variant="secondary" loading={state.busy === 'deny'} busy={state.busy !== null} onClick={() => v.decide(false)}>
          {it('idp.consent.deny')}
        </Button>
      </div>
    </>
  );
}

/** A scope's consent text: built-in scopes from the strings table, custom ones from the RBAC policy. */
function scopeText(r: ScopeResult, it: IdpTranslate, custom: (scope: string) => string | null): string {
  if (BUILTIN_SCOPES.includes(r.scope)) return it(`idp.scope.${r.scope}` as IdpStringKey);
  return custom(r.scope) ?? (r.description || r.scope);
}

/** Descriptions of the project's custom scopes, from the bootstrap's RBAC policy. */
function customScopes(bootstrap: BootstrapData): (scope: string) => string | null {
  const policy = bootstrap.rbacPolicy as { scopes?: { scope?: unknown; description?: unknown }[] } | null;
  return (scope) => {
    const found = policy?.scopes?.find((s) => s.scope === scope);
    return typeof found?.description === 'string' && found.description ? found.description : null;
  };
}
