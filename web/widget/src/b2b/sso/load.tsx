/**
 * The SSO discovery screens load on demand: in the ESM build they are a chunk of their own
 * (esm/SsoDiscoveryScreens.js), fetched when a member chooses 'Continue with SSO' in discovery.
 * The controller waits for the chunk before it shows the first of them (startSsoDiscovery), and
 * the widget's state lives only in memory, so no SSO discovery screen can be shown before the
 * chunk is here: the screens render at once, and receive focus, without suspending.
 */
import type { ComponentType } from 'react';

type SsoScreens = typeof import('./SsoDiscoveryScreens');

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

/** A registry entry for a screen of the chunk. */
export function onDemand(name: Exclude<keyof SsoScreens, 'default'>): ComponentType {
  return function OnDemandScreen() {
    const Screen = loaded?.[name];
    return Screen ? <Screen /> : null;
  };
}
