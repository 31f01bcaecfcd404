/**
 * An indeterminate progress indicator. With a label it is announced as a status; without one it is
 * decorative (inside a busy button, whose own name must stay stable).
 */
export function Spinner({ label, size = 'medium' }: { label?: string; size?: 'small' | 'medium' }) {
  return label ? (
    <span className={`lk-spinner lk-spinner--${size}`} role="status" aria-label={label} />
  ) : (
    <span className={`lk-spinner lk-spinner--${size}`} aria-hidden="true" />
  );
}
