import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

/** Writes a label into the widget's status region. */
const StatusContext = createContext<(label: string) => void>(() => undefined);

/**
 * The widget's loading announcements: one visually hidden live region, in the page from the
 * widget's first render, that labelled spinners write into. Screen readers announce a change to a
 * region already there, not a region inserted together with its text, as a spinner is. It is a
 * plain polite live region (no status role) so the screens' own status regions stay the only ones.
 */
export function StatusRegion({ children }: { children: ReactNode }) {
  const [label, setLabel] = useState('');
  return (
    <StatusContext.Provider value={setLabel}>
      {children}
      <p className="lk-visually-hidden" aria-live="polite">
        {label}
      </p>
    </StatusContext.Provider>
  );
}

/**
 * An indeterminate progress indicator, hidden from screen readers: its label, if any, is said by
 * the StatusRegion around it while the spinner shows. Without a label it is decorative (inside a
 * busy button, whose own name must stay stable).
 */
export function Spinner({ label, size = 'medium' }: { label?: string; size?: 'small' | 'medium' }) {
  const announce = useContext(StatusContext);
  useEffect(() => {
    if (!label) return;
    announce(label);
    // Only one labelled spinner shows at a time; the region empties with it.
    return () => announce('');
  }, [label, announce]);
  return <span className={`lk-spinner lk-spinner--${size}`} aria-hidden="true" />;
}
