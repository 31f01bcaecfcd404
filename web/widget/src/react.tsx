import { useLayoutEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { LoginApp, type LoginOptions } from './b2b/LoginApp';
import { backendOf, type B2BClient } from './client';
import { IdentityProviderApp, type IdentityProviderOptions } from './idp/IdentityProviderApp';
import { installStyles } from './theme/styles';

/**
 * Renders into an open shadow root on a host <div>, through a portal, so the widget stays inside
 * the application's React tree while its CSS stays isolated like the custom elements'.
 */
function useShadowHost() {
  const hostRef = useRef<HTMLDivElement>(null);
  const [shadow, setShadow] = useState<ShadowRoot | null>(null);
  useLayoutEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
    installStyles(root);
    setShadow(root);
  }, []);
  return { hostRef, shadow };
}

export interface B2BLoginProps extends LoginOptions {
  client: B2BClient;
}

/** The login widget as a React component (ESM build). */
export function B2BLogin({ client, ...options }: B2BLoginProps) {
  const { hostRef, shadow } = useShadowHost();
  const backend = backendOf(client);
  return (
    <div ref={hostRef} data-latchkey-widget="login">
      {shadow
        ? createPortal(<LoginApp key={backend.id} backend={backend} options={options} eventTarget={hostRef.current} />, shadow)
        : null}
    </div>
  );
}

export interface B2BIdentityProviderProps extends IdentityProviderOptions {
  client: B2BClient;
}

/** The identity-provider widget as a React component (ESM build). */
export function B2BIdentityProvider({ client, ...options }: B2BIdentityProviderProps) {
  const { hostRef, shadow } = useShadowHost();
  const backend = backendOf(client);
  return (
    <div ref={hostRef} data-latchkey-widget="identity-provider">
      {shadow ? createPortal(<IdentityProviderApp key={backend.id} backend={backend} options={options} />, shadow) : null}
    </div>
  );
}
