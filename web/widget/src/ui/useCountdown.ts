import { useEffect, useState } from 'react';
import type { Clock } from '../clock';

/** Whole seconds left until `expiresAt` (epoch ms), re-rendering once per second; 0 when past. */
export function useCountdown(expiresAt: number | null, clock: Clock): number {
  const remaining = () => (expiresAt === null ? 0 : Math.max(0, Math.ceil((expiresAt - clock.now()) / 1000)));
  const [seconds, setSeconds] = useState(remaining);

  useEffect(() => {
    let handle: unknown = null;
    const tick = () => {
      const left = remaining();
      setSeconds(left);
      if (left > 0) handle = clock.setTimeout(tick, 1000);
    };
    tick();
    return () => {
      if (handle !== null) clock.clearTimeout(handle);
    };
    // `remaining` reads only expiresAt and clock, the effect's dependencies.
  }, [expiresAt, clock]);

  return seconds;
}

/** 5:07, 0:09 */
export function formatMinutesSeconds(totalSeconds: number): string {
  const m = Math.floor(totalSeconds / 60);
  const s = totalSeconds % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}
