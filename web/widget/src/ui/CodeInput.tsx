import { useState } from 'react';
import { Input } from './Input';

export interface CodeInputProps {
  id: string;
  label: string;
  length?: number;
  disabled?: boolean;
  error?: string | null;
  /** Called once the code has `length` digits. */
  onComplete: (code: string) => void;
  /** Changing this value clears the field (e.g. after a wrong code). */
  resetKey?: number;
}

/** A one-time-code field: digits only, submitted automatically when complete. */
export function CodeInput({ id, label, length = 6, disabled, error, onComplete, resetKey = 0 }: CodeInputProps) {
  const [state, setState] = useState({ value: '', resetKey });
  // Derived reset: clearing during render avoids an effect and a flash of the old code.
  const value = state.resetKey === resetKey ? state.value : '';
  if (state.resetKey !== resetKey) setState({ value: '', resetKey });

  const handleChange = (raw: string) => {
    const digits = raw.replace(/\D/g, '').slice(0, length);
    setState({ value: digits, resetKey });
    if (digits.length === length && digits !== value) onComplete(digits);
  };

  return (
    <Input
      id={id}
      label={label}
      className="lk-code-input"
      value={value}
      onValueChange={handleChange}
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern={`[0-9]{${length}}`}
      maxLength={length}
      disabled={disabled}
      error={error}
      required
    />
  );
}
