import { useCallback, useEffect, useRef, useState } from 'react';
import type { Clock } from '../clock';

/** How long a confirmation and a failure stay visible (spec section 9: toasts 2 s and 4 s). */
export const FLASH_SUCCESS_MS = 2000;
export const FLASH_ERROR_MS = 4000;

export interface FlashMessage {
  text: string;
  ok: boolean;
}

/** A short-lived message (e.g. "Codes copied to clipboard") that clears itself. */
export function useFlash(clock: Clock) {
  const [message, setMessage] = useState<FlashMessage | null>(null);
  const timer = useRef<unknown>(null);
  const clear = useCallback(() => {
    if (timer.current !== null) clock.clearTimeout(timer.current);
    timer.current = null;
  }, [clock]);
  useEffect(() => clear, [clear]);
  const show = useCallback(
    (next: FlashMessage) => {
      clear();
      setMessage(next);
      timer.current = clock.setTimeout(() => {
        timer.current = null;
        setMessage(null);
      }, next.ok ? FLASH_SUCCESS_MS : FLASH_ERROR_MS);
    },
    [clock, clear],
  );
  return { message, show };
}

/**
 * The region that announces flash messages. It is always rendered, so screen readers know the
 * live region before its text changes.
 */
export function Flash({ message }: { message: FlashMessage | null }) {
  return (
    <p className={message?.ok ? 'lk-text lk-text--muted' : 'lk-error-text'} role="status" aria-live="polite">
      {message?.text ?? ''}
    </p>
  );
}
