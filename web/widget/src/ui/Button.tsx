import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { Spinner } from './Spinner';

export interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'> {
  variant?: 'primary' | 'secondary' | 'text';
  /** Shows a spinner while this button's own action runs; implies `busy`. */
  loading?: boolean;
  /**
   * An action runs: presses are ignored and the button is announced and drawn as unavailable, but
   * it stays enabled. A focused button that becomes `disabled` loses focus to the page (Chrome moves
   * it to <body>) and nothing gives it back when the action fails (WCAG 2.4.3). `disabled` stays for
   * buttons that are unavailable because of what is on the screen, not because something runs.
   */
  busy?: boolean;
  children: ReactNode;
}

export function Button({
  variant = 'primary',
  loading = false,
  busy = false,
  disabled,
  type = 'button',
  className,
  onClick,
  children,
  ...rest
}: ButtonProps) {
  const held = busy || loading;
  return (
    <button
      {...rest}
      type={type}
      className={`lk-button lk-button--${variant}${className ? ` ${className}` : ''}`}
      disabled={disabled}
      aria-disabled={held && !disabled ? true : undefined}
      aria-busy={loading || undefined}
      onClick={(e) => {
        // Cancelling the click also cancels a submit button's form submission, including the one
        // that pressing Enter in a field of the form starts.
        if (held) {
          e.preventDefault();
          return;
        }
        onClick?.(e);
      }}
    >
      {loading ? <Spinner size="small" /> : null}
      <span className="lk-button__label">{children}</span>
    </button>
  );
}
