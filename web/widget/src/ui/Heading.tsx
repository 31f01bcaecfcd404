import type { ReactNode } from 'react';

/** The screen title. Focusable by script so focus can land on it when a screen opens. */
export function Heading({ children, hidden = false }: { children: ReactNode; hidden?: boolean }) {
  return (
    <h1 className={`lk-heading${hidden ? ' lk-visually-hidden' : ''}`} tabIndex={-1} data-lk-heading="">
      {children}
    </h1>
  );
}
