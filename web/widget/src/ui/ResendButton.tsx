import { useEffect, useRef, useState } from 'react';
import type { Clock } from '../clock';
import { Button } from './Button';

/** How long the "sent" label stays before the button is usable again (spec section 9). */
export const SENT_LABEL_MS = 2000;

export interface ResendButtonProps {
  labels: { idle: string; sending: string; sent: string };
  onResend: () => Promise<{ ok: boolean }>;
  clock: Clock;
}

/** Resend control cycling initial → sending → sent (for 2 s) → initial. */
export function ResendButton({ labels, onResend, clock }: ResendButtonProps) {
  const [phase, setPhase] = useState<'idle' | 'sending' | 'sent'>('idle');
  const timer = useRef<unknown>(null);
  const mounted = useRef(true);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      if (timer.current !== null) clock.clearTimeout(timer.current);
    };
  }, [clock]);

  const onClick = async () => {
    setPhase('sending');
    const result = await onResend();
    if (!mounted.current) return;
    if (!result.ok) {
      setPhase('idle');
      return;
    }
    setPhase('sent');
    timer.current = clock.setTimeout(() => {
      timer.current = null;
      if (mounted.current) setPhase('idle');
    }, SENT_LABEL_MS);
  };

  const label = phase === 'sending' ? labels.sending : phase === 'sent' ? labels.sent : labels.idle;
  return (
    // busy, not disabled: the pressed button keeps focus through sending and "sent".
    <Button variant="text" busy={phase !== 'idle'} onClick={() => void onClick()} aria-live="polite">
      {label}
    </Button>
  );
}
