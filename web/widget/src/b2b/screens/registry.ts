import type { ComponentType } from 'react';
import { Screen } from '../state/types';
import { DiscoveryScreen } from './DiscoveryScreen';
import { EmailConfirmationScreen } from './EmailConfirmationScreen';
import { EmailMethodSelectionScreen } from './EmailMethodSelectionScreen';
import { EmailOTPEntryScreen } from './EmailOTPEntryScreen';
import { ErrorScreen } from './ErrorScreen';
import { LoggedInScreen } from './LoggedInScreen';
import { MainScreen } from './MainScreen';

/** One component per Screen; a Screen without an entry here does not compile. */
export const SCREENS: Record<Screen, ComponentType> = {
  [Screen.Main]: MainScreen,
  [Screen.EmailMethodSelection]: EmailMethodSelectionScreen,
  [Screen.EmailConfirmation]: EmailConfirmationScreen,
  [Screen.EmailOTPEntry]: EmailOTPEntryScreen,
  [Screen.LoggedIn]: LoggedInScreen,
  [Screen.Error]: ErrorScreen,
  [Screen.Discovery]: DiscoveryScreen,
};
