import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type CSSProperties } from 'react';
import { DEFAULT_BOOTSTRAP, type BootstrapData } from '../api/bootstrap';
import { mergeStrings, createTranslator } from '../strings/t';
import type { StringsOverride } from '../strings/en';
import type { SsoDiscoveryStrings } from './sso/strings';
import { themeVariables, type WidgetStyles } from '../theme/theme';
import { useScreenFocus } from '../ui/focus';
import { normalizeConfig, type LoginConfig } from './config';
import { LoginContext, type LoginContextValue } from './context';
import { LoginController, type Emitter, type LoginBackend } from './controller';
import type { WidgetErrorPayload } from './errorMessages';
import type { WidgetEvent } from './events';
import { useScreenComponent } from './screens/registry';
import { LoggingInView } from './screens/LoggingInView';
import { Spinner, StatusRegion } from '../ui/Spinner';
import { initialState } from './state/reducer';
import { createStore } from './state/store';

export interface Callbacks {
  onEvent?: (event: WidgetEvent) => void;
  onError?: (error: WidgetErrorPayload) => void;
}

/** Mount options shared by `mountLogin()` and the `<B2BLogin>` component. */
export interface LoginOptions {
  config: LoginConfig;
  styles?: WidgetStyles;
  callbacks?: Callbacks;
  /** Overrides of the strings table, the SSO discovery screens' keys included. */
  strings?: StringsOverride & Partial<SsoDiscoveryStrings>;
}

export interface LoginAppProps {
  backend: LoginBackend;
  options: LoginOptions;
  /** Element that receives `stytch-event` / `stytch-error` DOM events. */
  eventTarget: EventTarget | null;
}

/** Calls integrator callbacks defensively: a throwing callback must not break the login flow. */
export function createEmitter(latest: { current: { callbacks?: Callbacks | undefined; target: EventTarget | null } }): Emitter {
  const send = (domType: string, detail: unknown, call: () => void) => {
    try {
      call();
    } catch (err) {
      console.error('Latchkey: callback threw', err);
    }
    latest.current.target?.dispatchEvent(new CustomEvent(domType, { detail, bubbles: true, composed: true }));
  };
  return {
    event: (type, data) => send('stytch-event', { type, data }, () => latest.current.callbacks?.onEvent?.({ type, data })),
    error: (payload) => send('stytch-error', payload, () => latest.current.callbacks?.onError?.(payload)),
  };
}

/** The login experience: owns the store and controller of one mounted widget. */
export function LoginApp({ backend, options, eventTarget }: LoginAppProps) {
  const config = useMemo(() => normalizeConfig(options.config), [options.config]);
  const t = useMemo(() => createTranslator(mergeStrings(options.strings)), [options.strings]);
  // Re-mounting with new options updates these; the controller always reads the latest.
  const latest = useRef({ config, t, rawConfig: options.config as unknown, callbacks: options.callbacks, target: eventTarget });
  latest.current = { config, t, rawConfig: options.config, callbacks: options.callbacks, target: eventTarget };

  const [{ store, controller }] = useState(() => {
    const store = createStore(initialState(config.authFlowType));
    const controller = new LoginController({
      backend,
      store,
      getConfig: () => latest.current.config,
      getRawConfig: () => latest.current.rawConfig,
      getTranslate: () => latest.current.t,
      emit: createEmitter(latest),
    });
    return { store, controller };
  });
  const state = useSyncExternalStore(store.subscribe, store.getState, store.getState);
  const [bootstrap, setBootstrap] = useState<BootstrapData>(DEFAULT_BOOTSTRAP);

  useEffect(() => {
    let live = true;
    void backend.bootstrap().then((b) => live && setBootstrap(b));
    controller.start();
    return () => {
      live = false;
    };
  }, [backend, controller]);

  // A token being redeemed, or an organization being created or entered, shows "Logging in...".
  const loggingIn = state.pending.urlToken || state.pending.discovery;
  const viewKey = loggingIn ? 'LoggingIn' : state.screen;
  const ScreenComponent = useScreenComponent(state.screen, controller);
  const screenRef = useRef<HTMLDivElement>(null);
  // Focus moves once the screen is there, after its part has loaded.
  useScreenFocus(screenRef, viewKey, loggingIn || ScreenComponent !== null);

  const ctx: LoginContextValue = {
    state,
    controller,
    config,
    t,
    stringsOverride: options.strings,
    bootstrap,
    clock: backend.clock,
    presentation: {
      logoImageUrl: options.styles?.logo?.logoImageUrl || null,
      hideHeaderText: options.styles?.hideHeaderText === true,
    },
  };
  const style = useMemo(() => themeVariables(options.styles) as CSSProperties, [options.styles]);

  return (
    <LoginContext.Provider value={ctx}>
      <div className="lk-root" style={style} data-screen={viewKey}>
        <StatusRegion>
          {/* Floating One Tap only: Google's prompt is the whole widget (api-reference 3.6). */}
          {config.oneTap.floatingOnly ? null : (
            <div className="lk-screen" ref={screenRef} key={viewKey}>
              {loggingIn ? (
                <LoggingInView />
              ) : ScreenComponent ? (
                <ScreenComponent />
              ) : (
                // Takes the focus of the screen that went (useScreenFocus) until this one's part loads.
                <div className="lk-center" tabIndex={-1} data-lk-loading="">
                  <Spinner label={t('common.loading')} />
                </div>
              )}
            </div>
          )}
          {bootstrap.displayWatermark ? <p className="lk-watermark">{t('common.watermark')}</p> : null}
        </StatusRegion>
      </div>
    </LoginContext.Provider>
  );
}
