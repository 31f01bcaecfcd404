import { useState } from 'react';

export interface CodeExpiryProps {
  secondsLeft: number;
  /** Shown while the code is valid, e.g. "Your code expires in 4:59." */
  countdownText: string;
  /** Shown once it has expired. */
  expiredText: string;
}

/**
 * A one-time code's countdown, and the announcement of its expiry. The countdown is not a live
 * region: read out every second it would drown everything else. The expiry alone is announced,
 * through a separate hidden region that is already in the page, empty, when the text arrives
 * (WCAG 4.1.3). It speaks only when a code runs out while on screen, not when the screen opens on
 * a code that is already gone (an SMS still on its way, or one that failed to send).
 */
export function CodeExpiry({ secondsLeft, countdownText, expiredText }: CodeExpiryProps) {
  const [counting, setCounting] = useState(secondsLeft > 0);
  if (secondsLeft > 0 && !counting) setCounting(true);
  return (
    <>
      <p className="lk-text lk-text--muted" aria-live="off">
        {secondsLeft > 0 ? countdownText : expiredText}
      </p>
      <p className="lk-visually-hidden" role="status" aria-live="polite">
        {counting && secondsLeft === 0 ? expiredText : ''}
      </p>
    </>
  );
}
