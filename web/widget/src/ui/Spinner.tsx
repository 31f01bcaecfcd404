import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';

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
 * busy button, whose own name must stay stable). A label that a focused element beside the spinner
 * already says (LoggingInView's heading, which takes the focus when it replaces a screen) is not
 * put in the region too, or a screen reader says it twice.
 */
export function Spinner({ label, size = 'medium' }: { label?: string; size?: 'small' | 'medium' }) {
  const announce = useContext(StatusContext);
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    // The focus as the widget's shadow root (or the document) sees it.
    const focused = (ref.current?.getRootNode() as Document | undefined)?.activeElement;
    if (!label || (focused?.textContent === label && ref.current?.parentElement?.contains(focused))) return;
    announce(label);
    // Only one labelled spinner shows at a time; the region empties with it.
    return () => announce('');
  }, [label, announce]);
  return <span ref={ref} className={`lk-spinner lk-spinner--${size}`} aria-hidden="true" />;
}
