/**
 * Time and randomness used by timers (telemetry flush, session refresh, OTP countdown). Injected so
 * tests can drive them deterministically; production uses the browser globals.
 */
export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
  /** Uniform in [0, 1). */
  random(): number;
}

export const systemClock: Clock = {
  // Looked up at call time (not bound at import) so fake timers installed later still apply.
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
  random: () => Math.random(),
};
