import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Button } from './Button';
import { CodeInput } from './CodeInput';
import { Divider } from './Divider';
import { formatMinutesSeconds } from './useCountdown';

/**
 * A paste as the browser does it: at most maxLength characters go in (jsdom does not cut values set
 * by script), then the input event.
 */
function paste(input: HTMLInputElement, text: string) {
  fireEvent.change(input, { target: { value: input.maxLength >= 0 ? text.slice(0, input.maxLength) : text } });
}

describe('ui primitives', () => {
  it('Button ignores presses while loading but stays enabled, so it keeps focus, and keeps its name', () => {
    const onClick = vi.fn();
    render(
      <Button loading onClick={onClick}>
        Continue
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    button.focus();
    expect(button.disabled).toBe(false);
    expect(button.getAttribute('aria-disabled')).toBe('true');
    expect(button.getAttribute('aria-busy')).toBe('true');
    fireEvent.click(button);
    expect(onClick).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(button);
  });

  it('a busy submit Button does not submit its form again; a free one does', () => {
    const onSubmit = vi.fn((e: { preventDefault: () => void }) => e.preventDefault());
    const form = (busy: boolean) => (
      <form onSubmit={onSubmit}>
        <Button type="submit" busy={busy}>
          Send
        </Button>
      </form>
    );
    const { rerender } = render(form(true));
    const button = screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;
    expect(button.getAttribute('aria-disabled')).toBe('true');
    expect(button.getAttribute('aria-busy')).toBeNull();
    fireEvent.click(button);
    expect(onSubmit).not.toHaveBeenCalled();
    rerender(form(false));
    expect(button.getAttribute('aria-disabled')).toBeNull();
    fireEvent.click(button);
    expect(onSubmit).toHaveBeenCalledOnce();
  });

  it('Button disabled for what the screen shows (not for an action) stays really disabled', () => {
    render(
      <Button disabled busy>
        Allow
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Allow' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.getAttribute('aria-disabled')).toBeNull();
  });

  it('CodeInput completes once per full code and clears when resetKey changes', () => {
    const onComplete = vi.fn();
    const { rerender } = render(<CodeInput id="c" label="Code" onComplete={onComplete} />);
    const input = screen.getByLabelText('Code') as HTMLInputElement;
    fireEvent.change(input, { target: { value: '12 34 5' } });
    expect(input.value).toBe('12345');
    expect(onComplete).not.toHaveBeenCalled();
    fireEvent.change(input, { target: { value: '1234567' } });
    expect(input.value).toBe('123456');
    expect(onComplete).toHaveBeenCalledExactlyOnceWith('123456');
    rerender(<CodeInput id="c" label="Code" onComplete={onComplete} resetKey={1} error="Wrong" />);
    expect((screen.getByLabelText('Code') as HTMLInputElement).value).toBe('');
    expect(screen.getByRole('alert').textContent).toBe('Wrong');
  });

  it('CodeInput is read-only, not disabled, while busy, so it keeps focus', () => {
    const { rerender } = render(<CodeInput id="c" label="Code" onComplete={() => undefined} busy />);
    const input = screen.getByLabelText('Code') as HTMLInputElement;
    input.focus();
    expect(input.disabled).toBe(false);
    expect(input.readOnly).toBe(true);
    rerender(<CodeInput id="c" label="Code" onComplete={() => undefined} busy={false} />);
    expect(input.readOnly).toBe(false);
    expect(document.activeElement).toBe(input);
  });

  it('CodeInput takes focus back when it is cleared after a wrong code, and not before', () => {
    const field = (resetKey: number) => (
      <>
        <button type="button">elsewhere</button>
        <CodeInput id="c" label="Code" onComplete={() => undefined} resetKey={resetKey} />
      </>
    );
    const { rerender } = render(field(0));
    const input = screen.getByLabelText('Code');
    expect(document.activeElement).not.toBe(input);
    screen.getByRole('button', { name: 'elsewhere' }).focus();
    rerender(field(0));
    expect(document.activeElement).not.toBe(input);
    rerender(field(1));
    expect(document.activeElement).toBe(input);
  });

  it('CodeInput takes a pasted code with spaces around or inside it whole', () => {
    for (const pasted of [' 123456', '123 456', '123-456 ']) {
      const onComplete = vi.fn();
      const { unmount } = render(<CodeInput id="c" label="Code" onComplete={onComplete} />);
      const input = screen.getByLabelText('Code') as HTMLInputElement;
      paste(input, pasted);
      expect(input.value).toBe('123456');
      expect(onComplete).toHaveBeenCalledExactlyOnceWith('123456');
      unmount();
    }
  });

  it('Divider shows its word as a separator', () => {
    render(<Divider text="or" />);
    expect(screen.getByRole('separator').textContent).toBe('or');
  });

  it('formats the countdown as m:ss', () => {
    expect(formatMinutesSeconds(600)).toBe('10:00');
    expect(formatMinutesSeconds(69)).toBe('1:09');
    expect(formatMinutesSeconds(0)).toBe('0:00');
  });
});
