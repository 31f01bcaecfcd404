import type { InputHTMLAttributes, Ref } from 'react';
import { ErrorText } from './ErrorText';

export interface InputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'onChange'> {
  id: string;
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  error?: string | null;
  /** The <input> itself (a prop, not `ref`: the standalone script runs React 18, which has no ref props). */
  inputRef?: Ref<HTMLInputElement>;
}

/** A labelled text field with its error message wired through aria-describedby. */
export function Input({ id, label, value, onValueChange, error, className, inputRef, ...rest }: InputProps) {
  const errorId = `${id}-error`;
  return (
    <div className={`lk-field${className ? ` ${className}` : ''}`}>
      <label className="lk-label" htmlFor={id}>
        {label}
      </label>
      <input
        {...rest}
        ref={inputRef}
        id={id}
        className="lk-input"
        value={value}
        onChange={(e) => onValueChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={errorId}
      />
      <ErrorText id={errorId} message={error} />
    </div>
  );
}
