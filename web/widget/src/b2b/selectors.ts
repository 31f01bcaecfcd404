import type { NormalizedConfig } from './config';
import { enabledMethods, mainBlocks, type MainBlock } from './methods';
import type { WidgetState } from './state/types';

/** Main's blocks for the current organization, primary-auth restriction and config. */
export function selectMainBlocks(state: WidgetState, config: NormalizedConfig): MainBlock[] {
  return mainBlocks(
    enabledMethods({
      products: config.products,
      oauthProviders: config.oauthProviders,
      organization: state.flowState.organization,
      primaryAllowed: state.primary?.allowedAuthMethods ?? null,
    }),
  );
}

/** The email methods on offer, used both to render the email form and to route its submission. */
export function selectEmailMethods(state: WidgetState, config: NormalizedConfig): { magicLink: boolean; otp: boolean } {
  const form = selectMainBlocks(state, config).find((b) => b.kind === 'emailForm');
  return { magicLink: Boolean(form?.magicLink), otp: Boolean(form?.otp) };
}
