import { useEffect, useRef, useState } from 'react';
import { Input } from './Input';

export interface CodeInputProps {
  id: string;
  label: string;
  length?: number;
  /**
   * The code is being checked: the field turns read-only, not disabled, so it keeps focus (a
   * focused field that is disabled sends focus to the page, and nothing brings it back).
   */
  busy?: boolean;
  error?: string | null;
  /** Called once the code has `length` digits. */
  onComplete: (code: string) => void;
  /** Changing this value clears the field (e.g. after a wrong code) and focuses it for the next try. */
  resetKey?: number;
}

/** A one-time-code field: digits only, submitted automatically when complete. */
export function CodeInput({ id, label, length = 6, busy, error, onComplete, resetKey = 0 }: CodeInputProps) {
  const [state, setState] = useState({ value: '', resetKey });
  // Derived reset: clearing during render avoids an effect and a flash of the old code.
  const value = state.resetKey === resetKey ? state.value : '';
  if (state.resetKey !== resetKey) setState({ value: '', resetKey });

  const input = useRef<HTMLInputElement>(null);
  const focusedFor = useRef(resetKey);
  useEffect(() => {
    if (focusedFor.current === resetKey) return;
    focusedFor.current = resetKey;
    input.current?.focus();
  }, [resetKey]);

  const handleChange = (raw: string) => {
    const digits = raw.replace(/\D/g, '').slice(0, length);
    setState({ value: digits, resetKey });
    if (digits.length === length && digits !== value) onComplete(digits);
  };

  // No maxLength: the browser would cut a pasted " 123456" or "123 456" to its first characters
  // before the separators are stripped; handleChange keeps `length` digits instead.
  return (
    <Input
      id={id}
      inputRef={input}
      label={label}
      className="lk-code-input"
      value={value}
      onValueChange={handleChange}
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern={`[0-9]{${length}}`}
      readOnly={busy}
      error={error}
      required
    />
  );
}
