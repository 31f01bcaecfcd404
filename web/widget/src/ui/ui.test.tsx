import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Button } from './Button';
import { CodeInput } from './CodeInput';
import { Divider } from './Divider';
import { formatMinutesSeconds } from './useCountdown';

describe('ui primitives', () => {
  it('Button disables itself and keeps its name while loading', () => {
    const onClick = vi.fn();
    render(
      <Button loading onClick={onClick}>
        Continue
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.getAttribute('aria-busy')).toBe('true');
    fireEvent.click(button);
    expect(onClick).not.toHaveBeenCalled();
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
