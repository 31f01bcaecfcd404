import { useEffect, useMemo, useState, type CSSProperties } from 'react';
import type { BootstrapData } from '../api/bootstrap';
import type { SessionSnapshot } from '../session/manager';
import type { StringsOverride } from '../strings/en';
import { createTranslator, mergeStrings } from '../strings/t';
import { themeVariables, type WidgetStyles } from '../theme/theme';

export interface IdentityProviderOptions {
  styles?: WidgetStyles;
  strings?: StringsOverride;
  /** Accepted for API symmetry; consent and logout events arrive with those flows. */
  callbacks?: { onEvent?: (e: { type: string; data: unknown }) => void; onError?: (e: { message: string }) => void };
  config?: Record<string, unknown>;
}

export interface IdpBackend {
  session: { getSync(): SessionSnapshot | null; onChange(cb: (s: SessionSnapshot | null) => void): () => void };
  bootstrap(): Promise<BootstrapData>;
  logEvent(name: string, details: unknown): void;
}

/**
 * The identity-provider experience. Consent (authorize) and logout confirmation arrive in a later
 * slice; for now it reports whether a session exists, which the authorize flow requires.
 */
export function IdentityProviderApp({ backend, options }: { backend: IdpBackend; options: IdentityProviderOptions }) {
  const t = useMemo(() => createTranslator(mergeStrings(options.strings)), [options.strings]);
  // getSync() builds a fresh object per call, so it is held in state rather than read through
  // useSyncExternalStore (which requires referentially stable snapshots).
  const [session, setSession] = useState(() => backend.session.getSync());
  useEffect(() => {
    setSession(backend.session.getSync());
    return backend.session.onChange(setSession);
  }, [backend]);
  const style = useMemo(() => themeVariables(options.styles) as CSSProperties, [options.styles]);

  useEffect(() => {
    void backend.bootstrap().then((bootstrap) =>
      backend.logEvent('render_b2b_idp_screen', { options: options.config ?? {}, bootstrap }),
    );
    // Logged once per mount, like the login screen's render event.
  }, [backend]);

  return (
    <div className="lk-root" style={style}>
      <div className="lk-screen">
        <p className="lk-text" role="status">
          {session ? t('idp.signedIn', { email: session.member.email_address }) : t('idp.noSession')}
        </p>
      </div>
    </div>
  );
}
