import { useLayoutEffect, useRef, type RefObject } from 'react';

/** The fields focus may land on: enabled, in the tab order (not the reset form's hidden username). */
const FIELDS = ':is(input,select,textarea):not([disabled],[tabindex="-1"])';

/**
 * A field the member still has to fill in: an empty text field, or a select (its default is only a
 * suggestion, like the SMS screen's country, and a screen reader starting after it would miss it).
 */
function stillToFill(el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): boolean {
  return el.tagName === 'SELECT' || !el.value;
}

/** Whether focus is nowhere (on <body>, as when its element was removed) or already in this widget. */
function focusIsFree(container: HTMLElement): boolean {
  const active = container.ownerDocument.activeElement;
  const root = container.getRootNode() as Document | ShadowRoot;
  return !active || active === container.ownerDocument.body || active === (root as ShadowRoot).host || container.contains(active);
}

/**
 * Moves keyboard focus into a newly shown screen: its first field still to fill in (password login
 * opens on the password, its email being known), else its first field, else its heading. The
 * first screen is skipped so that mounting the widget does not steal focus from the host page, and
 * so is any change while the focus is on the host page (a link redeemed on load, an answer arriving
 * after the member moved on): the focus moves only from the widget or from nowhere. A screen still
 * loading (`ready` false) is focused once it is there; meanwhile its `[data-lk-loading]` placeholder
 * holds the focus.
 */
export function useScreenFocus(ref: RefObject<HTMLElement | null>, screenKey: string, ready = true): void {
  const firstKey = useRef(screenKey);
  const changed = useRef(false);
  useLayoutEffect(() => {
    if (screenKey !== firstKey.current) changed.current = true;
    if (!changed.current || !ref.current || !focusIsFree(ref.current)) return;
    if (!ready) {
      // The screen that held the focus is gone and this one's code is still loading: its placeholder
      // takes the focus rather than <body> (WCAG 2.4.3).
      ref.current.querySelector<HTMLElement>('[data-lk-loading]')?.focus();
      return;
    }
    const fields = [...ref.current.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(FIELDS)];
    const target = fields.find(stillToFill) ?? fields[0] ?? ref.current.querySelector<HTMLElement>('[data-lk-heading]');
    target?.focus();
  }, [ref, screenKey, ready]);
}
