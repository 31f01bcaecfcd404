import { render, screen } from '@testing-library/react';
import { useRef } from 'react';
import { describe, expect, it } from 'vitest';
import { useScreenFocus } from './focus';

// Screen is a screen with a heading and, when field names one, a field
// to fill in.
function Screen({ name, field }: { name: string; field?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useScreenFocus(ref, name);
  return (
    <div ref={ref}>
      <h1 tabIndex={-1} data-lk-heading="">
        {name}
      </h1>
      {/* Like the reset form's username for password managers. */}
      <input aria-hidden="true" tabIndex={-1} readOnly value="ada@acme.test" />
      {field ? <input aria-label={field} /> : null}
    </div>
  );
}

// withHostField runs fn with a field of the host page, outside the
// widget, and removes it afterwards.
function withHostField(fn: (host: HTMLInputElement) => void) {
  const host = document.createElement('input');
  document.body.append(host);
  try {
    fn(host);
  } finally {
    host.remove();
  }
}

describe('useScreenFocus', () => {
  it('focuses a new screen’s first field that is in the tab order, else its heading', () => {
    const { rerender } = render(<Screen name="first" />);
    expect(document.activeElement).toBe(document.body);
    rerender(<Screen name="form" field="Field" />);
    expect(document.activeElement).toBe(screen.getByLabelText('Field'));
    rerender(<Screen name="done" />);
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'done' }));
  });

  it('prefers the first field still to fill in, a select included', () => {
    function Form({ name }: { name: string }) {
      const ref = useRef<HTMLDivElement>(null);
      useScreenFocus(ref, name);
      return (
        <div ref={ref}>
          <h1 tabIndex={-1} data-lk-heading="">
            {name}
          </h1>
          {name === 'password' ? (
            <>
              <input aria-label="Email" defaultValue="ada@acme.test" />
              <input aria-label="Password" type="password" />
            </>
          ) : null}
          {name === 'phone' ? (
            <>
              <select aria-label="Country" defaultValue="US">
                <option value="US">United States</option>
              </select>
              <input aria-label="Phone number" />
            </>
          ) : null}
          {name === 'filled' ? <input aria-label="Known" defaultValue="x" /> : null}
        </div>
      );
    }
    const { rerender } = render(<Form name="first" />);
    rerender(<Form name="password" />);
    expect(document.activeElement).toBe(screen.getByLabelText('Password'));
    rerender(<Form name="phone" />);
    expect(document.activeElement).toBe(screen.getByLabelText('Country'));
    // Every field filled: the first one.
    rerender(<Form name="filled" />);
    expect(document.activeElement).toBe(screen.getByLabelText('Known'));
  });

  it('while a screen’s code loads its placeholder holds the focus, unless the host page has it', () => {
    function Lazy({ name, ready }: { name: string; ready: boolean }) {
      const ref = useRef<HTMLDivElement>(null);
      useScreenFocus(ref, name, ready);
      return (
        <div ref={ref}>
          {ready ? <input aria-label={`${name} field`} /> : <div tabIndex={-1} data-lk-loading="" data-testid="loading" />}
        </div>
      );
    }
    const { rerender } = render(<Lazy name="first" ready />);
    screen.getByLabelText('first field').focus();
    rerender(<Lazy name="next" ready={false} />);
    expect(document.activeElement).toBe(screen.getByTestId('loading'));
    rerender(<Lazy name="next" ready />);
    expect(document.activeElement).toBe(screen.getByLabelText('next field'));

    // Focus the member moved to the host page in the meantime stays there.
    withHostField((host) => {
      host.focus();
      rerender(<Lazy name="third" ready={false} />);
      expect(document.activeElement).toBe(host);
    });
  });

  it('leaves the focus on the host page when a screen changes without the member in the widget', () => {
    withHostField((host) => {
      const { rerender } = render(<Screen name="logging in" field="logging in field" />);
      host.focus();
      rerender(<Screen name="logged in" field="logged in field" />);
      expect(document.activeElement).toBe(host);
      // Back in the widget, the next change moves it again.
      screen.getByLabelText('logged in field').focus();
      rerender(<Screen name="next" field="next field" />);
      expect(document.activeElement).toBe(screen.getByLabelText('next field'));
    });
  });
});
