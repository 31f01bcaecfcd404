import { lazy, Suspense, useEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import type { BootstrapData } from '../api/bootstrap';
import type { HttpClient } from '../api/http';
import type { AuthenticateResponse } from '../api/types';
import type { SessionSnapshot } from '../session/manager';
import type { StringsOverride } from '../strings/en';
import { createTranslator, mergeStrings } from '../strings/t';
import type { IdpStrings } from './strings';
import { themeVariables, type WidgetStyles } from '../theme/theme';
import { Spinner, StatusRegion } from '../ui/Spinner';

/** A consent screen section: a header and its items (text, or text with detail lines). */
export type ConsentManifest = { header: string; items: (string | { text: string; details: string[] })[] }[];

export interface IdentityProviderOptions {
  styles?: WidgetStyles;
  /** Overrides of the strings table, the identity provider's own keys included. */
  strings?: StringsOverride & Partial<IdpStrings>;
  callbacks?: {
    onEvent?: (e: { type: string; data: unknown }) => void;
    onError?: (e: { message: string }) => void;
  };
  config?: Record<string, unknown>;
  /** Replaces the consent screen's list of what the app may do. */
  getIDPConsentManifest?: (params: { scopes: string[]; clientName: string }) => ConsentManifest;
  /** Log in with a trusted auth token first: any session is revoked, then one is attested. */
  trustedAuthTokenParams?: { trustedAuthToken: string; tokenProfileID: string; organization_id?: string };
}

export interface IdpBackend {
  http: HttpClient;
  session: {
    getSync(): SessionSnapshot | null;
    /** The session cookie, present while the stored state may still be loading. */
    sessionToken(): string | null;
    onChange(cb: (s: SessionSnapshot | null) => void): () => void;
    revoke(opts?: { forceClear?: boolean }): Promise<void>;
    applyAuthResponse(resp: AuthenticateResponse): void;
  };
  navigate(url: string): void;
  bootstrap(): Promise<BootstrapData>;
  logEvent(name: string, details: unknown): void;
}

// The consent and logout screens load on demand (a separate chunk of the ESM build).
const IdpScreens = lazy(() => import('./IdpScreens'));

/** The identity-provider experience: consent (authorize) and logout confirmation. */
export function IdentityProviderApp({ backend, options }: { backend: IdpBackend; options: IdentityProviderOptions }) {
  const t = useMemo(() => createTranslator(mergeStrings(options.strings)), [options.strings]);
  const style = useMemo(() => themeVariables(options.styles) as CSSProperties, [options.styles]);
  const [bootstrap, setBootstrap] = useState<BootstrapData | null>(null);
  // The request is the page address at mount.
  const [search] = useState(() => window.location.search);
  const screenRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    void backend.bootstrap().then((b) => {
      setBootstrap(b);
      backend.logEvent('render_b2b_idp_screen', { options: options.config ?? {}, bootstrap: b });
    });
    // Logged once per mount, like the login screen's render event.
  }, [backend]);

  const loading = <Spinner label={t('idp.loading')} />;
  return (
    <div className="lk-root" style={style}>
      <StatusRegion>
        <div className="lk-screen" ref={screenRef}>
          {bootstrap ? (
            <Suspense fallback={loading}>
              <IdpScreens backend={backend} options={options} t={t} search={search} bootstrap={bootstrap} screenRef={screenRef} />
            </Suspense>
          ) : (
            loading
          )}
        </div>
      </StatusRegion>
    </div>
  );
}
