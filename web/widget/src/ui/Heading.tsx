import type { ReactNode } from 'react';

/**
 * The screen title. Focusable by script so focus can land on it when a screen opens; `describedBy`
 * names what a screen reader reads with it then (a screen whose point is the text under its title).
 */
export function Heading({ children, hidden = false, describedBy }: { children: ReactNode; hidden?: boolean; describedBy?: string }) {
  return (
    <h1 className={`lk-heading${hidden ? ' lk-visually-hidden' : ''}`} tabIndex={-1} data-lk-heading="" aria-describedby={describedBy}>
      {children}
    </h1>
  );
}
