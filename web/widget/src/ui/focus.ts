import { useLayoutEffect, useRef, type RefObject } from 'react';

/**
 * Moves keyboard focus into a newly shown screen: its first enabled field, else its heading (a field
 * out of the tab order, like the reset form's hidden username for password managers, is none). The
 * first screen is skipped so that mounting the widget does not steal focus from the host page. A
 * screen still loading (`ready` false) is focused once it is there.
 */
export function useScreenFocus(ref: RefObject<HTMLElement | null>, screenKey: string, ready = true): void {
  const firstKey = useRef(screenKey);
  const changed = useRef(false);
  useLayoutEffect(() => {
    if (!ready) return;
    if (screenKey !== firstKey.current) changed.current = true;
    if (!changed.current || !ref.current) return;
    const target =
      ref.current.querySelector<HTMLElement>('input:not([disabled]):not([tabindex="-1"])') ??
      ref.current.querySelector<HTMLElement>('[data-lk-heading]');
    target?.focus();
  }, [ref, screenKey, ready]);
}
