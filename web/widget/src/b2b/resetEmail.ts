/**
 * The email a reset or verification link was sent to, kept in localStorage (`reset-email-value`)
 * so the reset page, opened from the email, can let the strength check judge passwords made of it.
 */
export class ResetEmailStore {
  private readonly key: string;

  constructor(publicToken: string) {
    this.key = `stytch_sdk_state_${publicToken}::reset-email-value`;
  }

  get(): string | null {
    try {
      return localStorage.getItem(this.key);
    } catch {
      return null;
    }
  }

  set(email: string): void {
    try {
      localStorage.setItem(this.key, email);
    } catch {
      // Only a hint for the strength check; the flow works without it.
    }
  }

  clear(): void {
    try {
      localStorage.removeItem(this.key);
    } catch {
      // Nothing stored when storage is unavailable.
    }
  }
}
