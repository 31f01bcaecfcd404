import { useState } from 'react';
import { ErrorText } from './ErrorText';
import { EyeIcon } from './icons';

export interface PasswordInputProps {
  id: string;
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  /** Names of the toggle in its two states ("Show password" / "Hide password"). */
  showLabel: string;
  hideLabel: string;
  autoComplete: 'current-password' | 'new-password';
  error?: string | null;
  /** Ids of more text describing the field (a strength meter). */
  describedBy?: string;
  disabled?: boolean;
}

/** A password field with a show/hide toggle; the toggle's name says what pressing it does. */
export function PasswordInput({ id, label, value, onValueChange, showLabel, hideLabel, autoComplete, error, describedBy, disabled }: PasswordInputProps) {
  const [visible, setVisible] = useState(false);
  const errorId = `${id}-error`;
  return (
    <div className="lk-field">
      <label className="lk-label" htmlFor={id}>
        {label}
      </label>
      <div className="lk-password">
        <input
          id={id}
          className="lk-input"
          type={visible ? 'text' : 'password'}
          name="password"
          value={value}
          onChange={(e) => onValueChange(e.target.value)}
          autoComplete={autoComplete}
          autoCapitalize="off"
          spellCheck={false}
          required
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy ? `${errorId} ${describedBy}` : errorId}
        />
        <button
          type="button"
          className="lk-password__toggle"
          aria-controls={id}
          aria-label={visible ? hideLabel : showLabel}
          onClick={() => setVisible((v) => !v)}
        >
          <EyeIcon crossed={visible} />
        </button>
      </div>
      <ErrorText id={errorId} message={error} />
    </div>
  );
}
