import { createContext, useContext } from 'react';
import type { BootstrapData } from '../api/bootstrap';
import type { Clock } from '../clock';
import type { StringsOverride } from '../strings/en';
import type { Translate } from '../strings/t';
import type { NormalizedConfig } from './config';
import type { LoginController } from './controller';
import type { WidgetState } from './state/types';

/** Everything a screen reads: state to render and the controller to send intents to. */
export interface LoginContextValue {
  state: WidgetState;
  controller: LoginController;
  config: NormalizedConfig;
  t: Translate;
  /** The `strings` mount option, for the tables of screens loaded on demand. */
  stringsOverride?: StringsOverride | undefined;
  bootstrap: BootstrapData;
  clock: Clock;
  /** Presentation options from `styles` that change markup rather than CSS. */
  presentation: { logoImageUrl: string | null; hideHeaderText: boolean };
}

export const LoginContext = createContext<LoginContextValue | null>(null);

export function useLogin(): LoginContextValue {
  const value = useContext(LoginContext);
  if (!value) throw new Error('Latchkey: login screens must render inside <LoginContext>');
  return value;
}
