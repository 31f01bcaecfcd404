/**
 * The SSO discovery screens load on demand: in the ESM build they are a chunk of their own
 * (esm/SsoDiscoveryScreens.js), fetched when a member chooses 'Continue with SSO' in discovery.
 * The controller waits for the chunk before showing the first screen, so the screens render at
 * once (and receive focus) instead of suspending.
 */
import { lazy, Suspense, type ComponentType } from 'react';
import { Spinner } from '../../ui/Spinner';

type SsoScreens = typeof import('./SsoDiscoveryScreens');
type ScreenName = 'SSODiscoveryEmailScreen' | 'SSODiscoveryFallbackScreen' | 'SSODiscoveryMenuScreen';

let loaded: SsoScreens | null = null;
let loading: Promise<SsoScreens> | null = null;

export function loadSsoDiscoveryScreens(): Promise<SsoScreens> {
  loading ??= import('./SsoDiscoveryScreens').then(
    (m) => (loaded = m),
    (err: unknown) => {
      // A failed download may be retried by the next click.
      loading = null;
      throw err;
    },
  );
  return loading;
}

/** A registry entry for a screen of the chunk: rendered directly once loaded, else after loading. */
export function onDemand(name: ScreenName): ComponentType {
  const Lazy = lazy(() => loadSsoDiscoveryScreens().then((m) => ({ default: m[name] })));
  return function OnDemandScreen() {
    const Loaded = loaded?.[name];
    if (Loaded) return <Loaded />;
    return (
      <Suspense fallback={<Spinner />}>
        <Lazy />
      </Suspense>
    );
  };
}
