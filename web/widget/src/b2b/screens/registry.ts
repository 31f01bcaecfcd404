import { useEffect, useState, type ComponentType } from 'react';
import type { LoginController } from '../controller';
import type { PartModules, PartName } from '../parts';
import { Screen } from '../state/types';
import { EmailMethodSelectionScreen } from './EmailMethodSelectionScreen';
import { EmailOTPEntryScreen } from './EmailOTPEntryScreen';
import { ErrorScreen } from './ErrorScreen';
import { LoggedInScreen } from './LoggedInScreen';
import { MainScreen } from './MainScreen';
import { PasswordAuthenticateScreen } from './PasswordAuthenticateScreen';
import { PasswordEmailScreen } from './PasswordEmailScreen';

/** A screen whose component comes with a part that loads on demand (parts.ts). */
class LazyScreen {
  constructor(
    readonly part: PartName,
    readonly pick: (part: PartModules[PartName]) => ComponentType,
  ) {}
}

function lazy<K extends PartName>(part: K, pick: (m: PartModules[K]) => ComponentType): LazyScreen {
  return new LazyScreen(part, pick as (m: PartModules[PartName]) => ComponentType);
}
const mfa = (pick: (m: PartModules['mfa']) => ComponentType) => lazy('mfa', pick);
const reset = (pick: (m: PartModules['passwordReset']) => ComponentType) => lazy('passwordReset', pick);
const sent = (pick: (m: PartModules['linkSent']) => ComponentType) => lazy('linkSent', pick);
const sso = (pick: (m: PartModules['ssoDiscovery']) => ComponentType) => lazy('ssoDiscovery', pick);

/** One component per Screen; a Screen without an entry here does not compile. */
const SCREENS: Record<Screen, ComponentType | LazyScreen> = {
  [Screen.Main]: MainScreen,
  [Screen.EmailMethodSelection]: EmailMethodSelectionScreen,
  [Screen.EmailConfirmation]: sent((m) => m.EmailConfirmationScreen),
  [Screen.EmailOTPEntry]: EmailOTPEntryScreen,
  [Screen.LoggedIn]: LoggedInScreen,
  [Screen.Error]: ErrorScreen,
  [Screen.Discovery]: lazy('discovery', (m) => m.DiscoveryScreen),
  // Multi-factor authentication
  [Screen.MFAEnrollmentSelection]: mfa((m) => m.MFAEnrollmentSelectionScreen),
  [Screen.SMSOTPEnrollment]: mfa((m) => m.SMSOTPEnrollmentScreen),
  [Screen.SMSOTPEntry]: mfa((m) => m.SMSOTPEntryScreen),
  [Screen.TOTPEnrollmentQRCode]: mfa((m) => m.TOTPEnrollmentQRCodeScreen),
  [Screen.TOTPEnrollmentManual]: mfa((m) => m.TOTPEnrollmentManualScreen),
  [Screen.TOTPEntry]: mfa((m) => m.TOTPEntryScreen),
  [Screen.RecoveryCodeSave]: mfa((m) => m.RecoveryCodeSaveScreen),
  [Screen.RecoveryCodeEntry]: mfa((m) => m.RecoveryCodeEntryScreen),
  // Passwords.
  [Screen.PasswordEmail]: PasswordEmailScreen,
  [Screen.PasswordAuthenticate]: PasswordAuthenticateScreen,
  [Screen.PasswordForgotForm]: reset((m) => m.PasswordForgotScreen),
  [Screen.PasswordResetForm]: reset((m) => m.PasswordResetScreen),
  [Screen.PasswordResetVerifyConfirmation]: sent((m) => m.PasswordResetVerifyConfirmationScreen),
  [Screen.PasswordSetNewConfirmation]: sent((m) => m.PasswordSetNewConfirmationScreen),
  // SSO discovery.
  [Screen.SSODiscoveryEmail]: sso((m) => m.SSODiscoveryEmailScreen),
  [Screen.SSODiscoveryFallback]: sso((m) => m.SSODiscoveryFallbackScreen),
  [Screen.SSODiscoveryMenu]: sso((m) => m.SSODiscoveryMenuScreen),
};

/**
 * The component of `screen`, or null while the part it belongs to loads. A part that fails to
 * load leads to the Error screen, from which the member can go back and try again.
 */
export function useScreenComponent(screen: Screen, controller: LoginController): ComponentType | null {
  const entry = SCREENS[screen];
  const lazyEntry = entry instanceof LazyScreen ? entry : null;
  const part = lazyEntry ? controller.loadedPart(lazyEntry.part) : undefined;
  const [, setLoads] = useState(0);
  useEffect(() => {
    if (!lazyEntry || part) return;
    let live = true;
    controller.loadPart(lazyEntry.part).then(
      () => live && setLoads((n) => n + 1),
      (err: unknown) => live && controller.partFailed(err),
    );
    return () => {
      live = false;
    };
  }, [controller, lazyEntry, part]);
  if (!lazyEntry) return entry as ComponentType;
  return part ? lazyEntry.pick(part) : null;
}
