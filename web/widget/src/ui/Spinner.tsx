import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';

/** Writes a label into the widget's status region; the returned function takes it out again. */
type Announce = (label: string) => () => void;

const StatusContext = createContext<Announce | null>(null);

/**
 * The widget's loading announcements: one visually hidden live region, in the page from the
 * widget's first render, that labelled spinners write into. Screen readers announce a change to a
 * region already there, not a region inserted together with its text, as a spinner is. It is a
 * plain polite live region (no status role) so the screens' own status regions stay the only ones.
 */
export function StatusRegion({ children }: { children: ReactNode }) {
  const [labels, setLabels] = useState<{ id: number; label: string }[]>([]);
  const nextId = useRef(0);
  const announce = useCallback<Announce>((label) => {
    const id = nextId.current++;
    setLabels((all) => [...all, { id, label }]);
    return () => setLabels((all) => all.filter((l) => l.id !== id));
  }, []);
  return (
    <StatusContext.Provider value={announce}>
      {children}
      <p className="lk-visually-hidden" aria-live="polite" aria-atomic="true" data-lk-status="">
        {labels[labels.length - 1]?.label ?? ''}
      </p>
    </StatusContext.Provider>
  );
}

/**
 * An indeterminate progress indicator, always hidden from screen readers: its label, if any, goes
 * to the StatusRegion around it. Without a label it is decorative (inside a busy button, whose own
 * name must stay stable). Outside a StatusRegion a labelled spinner is its own status.
 */
export function Spinner({ label, size = 'medium' }: { label?: string; size?: 'small' | 'medium' }) {
  const announce = useContext(StatusContext);
  useEffect(() => (label && announce ? announce(label) : undefined), [label, announce]);
  return label && !announce ? (
    <span className={`lk-spinner lk-spinner--${size}`} role="status" aria-label={label} />
  ) : (
    <span className={`lk-spinner lk-spinner--${size}`} aria-hidden="true" />
  );
}
