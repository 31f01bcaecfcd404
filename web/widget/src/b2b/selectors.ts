import { AuthFlowType, type NormalizedConfig } from './config';
import { enabledMethods, mainBlocks, type MainBlock } from './methods';
import { mfaEnrollmentMethods } from './state/mfa';
import type { MfaMethod, WidgetState } from './state/types';

/** Discovery without a chosen organization: email sends and authentications use the discovery calls. */
export function isDiscovering(state: WidgetState): boolean {
  return state.flowState.type === AuthFlowType.Discovery && state.flowState.organization === null;
}

/** Main's blocks for the current organization, primary-auth restriction, last used method and config. */
export function selectMainBlocks(state: WidgetState, config: NormalizedConfig): MainBlock[] {
  const organization = state.flowState.organization;
  return mainBlocks(
    enabledMethods({
      products: config.products,
      oauthProviders: config.oauthProviders,
      organization,
      primaryAllowed: state.primary?.allowedAuthMethods ?? null,
    }),
    {
      sso: organization ? organization.sso_active_connections ?? [] : isDiscovering(state) ? 'discovery' : [],
      lastUsed: state.lastUsedMethod,
    },
  );
}

/** The email methods on offer, used both to render the email form and to route its submission. */
export function selectEmailMethods(state: WidgetState, config: NormalizedConfig): { magicLink: boolean; otp: boolean } {
  const form = selectMainBlocks(state, config).find((b) => b.kind === 'emailForm');
  return { magicLink: Boolean(form?.magicLink), otp: Boolean(form?.otp) };
}

/** The methods MFA Enrollment Selection offers, in the configured order (state/mfa.ts). */
export function selectMfaEnrollmentMethods(state: WidgetState, config: NormalizedConfig): MfaMethod[] {
  return mfaEnrollmentMethods(state.flowState.organization, config.mfaProductInclude, config.mfaProductOrder);
}
