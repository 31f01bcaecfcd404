import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import css from '../theme/widget.css?inline';
import { CodeExpiry } from './CodeExpiry';
import { ErrorText } from './ErrorText';
import { Flash } from './Flash';
import { Spinner, StatusRegion } from './Spinner';

/** The widget's stylesheet in the test document, so computed styles are the real ones. */
function withWidgetStyles() {
  const style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);
  return () => style.remove();
}

describe('live regions', () => {
  it('an empty Flash or ErrorText region stays rendered (not display: none) and takes no room', () => {
    const removeStyles = withWidgetStyles();
    try {
      render(
        <>
          <Flash message={null} />
          <ErrorText message={null} />
        </>,
      );
      for (const region of [screen.getByRole('status'), screen.getByRole('alert')]) {
        expect(region.textContent).toBe('');
        const style = getComputedStyle(region);
        expect(style.display).not.toBe('none');
        expect(style.visibility).not.toBe('hidden');
        // Out of the flex flow, so the screens' gaps are as before.
        expect(style.position).toBe('absolute');
      }
    } finally {
      removeStyles();
    }
  });

  it('a Flash message shows in the region that was already there', () => {
    const { rerender } = render(<Flash message={null} />);
    const region = screen.getByRole('status');
    rerender(<Flash message={{ text: 'Codes copied to clipboard', ok: true }} />);
    expect(screen.getByRole('status')).toBe(region);
    expect(region.textContent).toBe('Codes copied to clipboard');
  });

  it('CodeExpiry announces the expiry, once the code runs out, in a region present from the start', () => {
    const expiry = (secondsLeft: number) => (
      <CodeExpiry secondsLeft={secondsLeft} countdownText={`expires in ${secondsLeft}`} expiredText="Expired." />
    );
    const { rerender } = render(expiry(2));
    const region = screen.getByRole('status');
    expect(region.getAttribute('aria-live')).toBe('polite');
    expect(region.textContent).toBe('');
    // The countdown itself is not announced every second.
    expect(screen.getByText('expires in 2').getAttribute('aria-live')).toBe('off');
    rerender(expiry(1));
    expect(region.textContent).toBe('');
    rerender(expiry(0));
    expect(screen.getByRole('status')).toBe(region);
    expect(region.textContent).toBe('Expired.');
    expect(screen.getAllByText('Expired.')).toHaveLength(2);
    // A new code clears it, for the next expiry.
    rerender(expiry(120));
    expect(region.textContent).toBe('');
  });

  it('CodeExpiry says nothing when the screen opens on a code already gone (an SMS not sent yet)', () => {
    const { rerender } = render(<CodeExpiry secondsLeft={0} countdownText="" expiredText="Expired." />);
    expect(screen.getByRole('status').textContent).toBe('');
    expect(screen.getByText('Expired.').getAttribute('aria-live')).toBe('off');
    rerender(<CodeExpiry secondsLeft={0} countdownText="" expiredText="Expired." />);
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('a labelled spinner is hidden and says its label in the widget’s status region, there from the start', () => {
    const removeStyles = withWidgetStyles();
    try {
      const view = (label: string | null) => <StatusRegion>{label ? <Spinner label={label} /> : null}</StatusRegion>;
      const { container, rerender } = render(view(null));
      const region = container.querySelector<HTMLElement>('p.lk-visually-hidden[aria-live]:not([role])')!;
      expect(region.getAttribute('aria-live')).toBe('polite');
      expect(region.textContent).toBe('');
      expect(getComputedStyle(region).display).not.toBe('none');
      rerender(view('Loading organization'));
      expect(container.querySelector('p.lk-visually-hidden[aria-live]:not([role])')).toBe(region);
      expect(region.textContent).toBe('Loading organization');
      const spinner = container.querySelector('.lk-spinner')!;
      expect(spinner.getAttribute('aria-hidden')).toBe('true');
      expect(spinner.getAttribute('role')).toBeNull();
      expect(screen.queryByRole('status')).toBeNull();
      rerender(view(null));
      expect(region.textContent).toBe('');
    } finally {
      removeStyles();
    }
  });

  it('a spinner does not say its label when the focused element beside it already says it', () => {
    const region = (c: HTMLElement) => c.querySelector('p.lk-visually-hidden[aria-live]:not([role])')!.textContent;
    // Focus moves to a screen's heading (useScreenFocus) before the spinner's effect runs.
    function Screen({ heading, focus }: { heading: string; focus: boolean }) {
      return (
        <div>
          <Spinner label="Logging in..." />
          <h1 tabIndex={-1} ref={(h) => (focus ? h?.focus() : undefined)}>
            {heading}
          </h1>
        </div>
      );
    }
    const same = render(<StatusRegion><Screen heading="Logging in..." focus /></StatusRegion>);
    expect(document.activeElement?.textContent).toBe('Logging in...');
    expect(region(same.container)).toBe('');
    same.unmount();
    // A focused heading that says something else, or a focus elsewhere (the host page), leaves it to the region.
    const other = render(<StatusRegion><Screen heading="Acme" focus /></StatusRegion>);
    expect(region(other.container)).toBe('Logging in...');
    other.unmount();
    const host = document.createElement('input');
    document.body.append(host);
    host.focus();
    const away = render(<StatusRegion><Screen heading="Logging in..." focus={false} /></StatusRegion>);
    expect(document.activeElement).toBe(host);
    expect(region(away.container)).toBe('Logging in...');
    away.unmount();
    host.remove();
  });
});
