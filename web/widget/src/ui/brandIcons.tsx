/**
 * Inline SVG marks for the OAuth and SSO buttons. They sit next to the button's text, which names
 * the provider, so they are decorative (hidden from assistive technology and not focusable).
 */
import type { ReactNode } from 'react';

function Mark({ viewBox, children }: { viewBox: string; children: ReactNode }) {
  return (
    <svg className="lk-brand-icon" viewBox={viewBox} width="20" height="20" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

export function GoogleIcon() {
  return (
    <Mark viewBox="0 0 48 48">
      <path fill="#EA4335" d="M24 9.5c3.54 0 6.71 1.22 9.21 3.6l6.85-6.85C35.9 2.38 30.47 0 24 0 14.62 0 6.51 5.38 2.56 13.22l7.98 6.19C12.43 13.72 17.74 9.5 24 9.5z" />
      <path fill="#4285F4" d="M46.98 24.55c0-1.57-.15-3.09-.38-4.55H24v9.02h12.94c-.58 2.96-2.26 5.48-4.78 7.18l7.73 6c4.51-4.18 7.09-10.36 7.09-17.65z" />
      <path fill="#FBBC05" d="M10.53 28.59c-.48-1.45-.76-2.99-.76-4.59s.27-3.14.76-4.59l-7.98-6.19C.92 16.46 0 20.12 0 24c0 3.88.92 7.54 2.56 10.78l7.97-6.19z" />
      <path fill="#34A853" d="M24 48c6.48 0 11.93-2.13 15.89-5.81l-7.73-6c-2.15 1.45-4.92 2.3-8.16 2.3-6.26 0-11.57-4.22-13.47-9.91l-7.98 6.19C6.51 42.62 14.62 48 24 48z" />
    </Mark>
  );
}

export function MicrosoftIcon() {
  return (
    <Mark viewBox="0 0 21 21">
      <rect x="0" y="0" width="10" height="10" fill="#F25022" />
      <rect x="11" y="0" width="10" height="10" fill="#7FBA00" />
      <rect x="0" y="11" width="10" height="10" fill="#00A4EF" />
      <rect x="11" y="11" width="10" height="10" fill="#FFB900" />
    </Mark>
  );
}

export function HubSpotIcon() {
  return (
    <Mark viewBox="0 0 24 24">
      <g fill="none" stroke="#FF7A59" strokeWidth="2.4" strokeLinecap="round">
        <circle cx="15" cy="14.5" r="4.3" />
        <path d="M15 10.2V5.5M11.8 11.6L5.5 7M11.9 17.6l-3.4 3.2" />
      </g>
      <circle cx="15" cy="4" r="2" fill="#FF7A59" />
      <circle cx="4.6" cy="6.3" r="1.9" fill="#FF7A59" />
    </Mark>
  );
}

export function SlackIcon() {
  return (
    <Mark viewBox="0 0 24 24">
      <rect x="8.5" y="2" width="3.5" height="10" rx="1.75" fill="#36C5F0" />
      <rect x="12" y="8.5" width="10" height="3.5" rx="1.75" fill="#2EB67D" />
      <rect x="12" y="12" width="3.5" height="10" rx="1.75" fill="#ECB22E" />
      <rect x="2" y="12" width="10" height="3.5" rx="1.75" fill="#E01E5A" />
    </Mark>
  );
}

export function GitHubIcon() {
  return (
    <Mark viewBox="0 0 16 16">
      <path
        fill="currentColor"
        d="M8 0C3.58 0 0 3.58 0 8c0 3.54 2.29 6.53 5.47 7.59.4.07.55-.17.55-.38 0-.19-.01-.82-.01-1.49-2.01.37-2.53-.49-2.69-.94-.09-.23-.48-.94-.82-1.13-.28-.15-.68-.52-.01-.53.63-.01 1.08.58 1.23.82.72 1.21 1.87.87 2.33.66.07-.52.28-.87.51-1.07-1.78-.2-3.64-.89-3.64-3.95 0-.87.31-1.59.82-2.15-.08-.2-.36-1.02.08-2.12 0 0 .67-.21 2.2.82.64-.18 1.32-.27 2-.27.68 0 1.36.09 2 .27 1.53-1.04 2.2-.82 2.2-.82.44 1.1.16 1.92.08 2.12.51.56.82 1.27.82 2.15 0 3.07-1.87 3.75-3.65 3.95.29.25.54.73.54 1.48 0 1.07-.01 1.93-.01 2.2 0 .21.15.46.55.38A8.01 8.01 0 0016 8c0-4.42-3.58-8-8-8z"
      />
    </Mark>
  );
}

export function OktaIcon() {
  return (
    <Mark viewBox="0 0 24 24">
      <circle cx="12" cy="12" r="7.5" fill="none" stroke="#007DC1" strokeWidth="4" />
    </Mark>
  );
}

/** Any other identity provider: a key. */
export function KeyIcon() {
  return (
    <Mark viewBox="0 0 24 24">
      <g fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <circle cx="8" cy="15" r="4.5" />
        <path d="M11.2 11.8L20 3M16.5 6.5l2.5 2.5M14 9l2 2" />
      </g>
    </Mark>
  );
}

/** The mark for an OAuth provider. */
export function ProviderIcon({ provider }: { provider: string }) {
  switch (provider) {
    case 'google':
      return <GoogleIcon />;
    case 'microsoft':
      return <MicrosoftIcon />;
    case 'hubspot':
      return <HubSpotIcon />;
    case 'slack':
      return <SlackIcon />;
    case 'github':
      return <GitHubIcon />;
    default:
      return <KeyIcon />;
  }
}

/** The mark for an SSO connection's identity provider (api-reference 3.0, SSOActiveConnection). */
export function IdentityProviderIcon({ identityProvider }: { identityProvider: string }) {
  switch (identityProvider) {
    case 'google-workspace':
      return <GoogleIcon />;
    case 'microsoft-entra':
      return <MicrosoftIcon />;
    case 'okta':
      return <OktaIcon />;
    default:
      return <KeyIcon />;
  }
}
