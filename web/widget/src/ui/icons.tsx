/** Inline SVG icons (no network requests from inside the shadow root). */
export function ErrorIcon({ label }: { label: string }) {
  return (
    <svg className="lk-icon lk-icon--error" viewBox="0 0 48 48" width="48" height="48" role="img" aria-label={label}>
      <circle cx="24" cy="24" r="22" fill="none" stroke="currentColor" strokeWidth="3" />
      <path d="M24 13v14" stroke="currentColor" strokeWidth="3.5" strokeLinecap="round" />
      <circle cx="24" cy="34" r="2.2" fill="currentColor" />
    </svg>
  );
}

export function SuccessIcon() {
  return (
    <svg className="lk-icon lk-icon--success" viewBox="0 0 48 48" width="48" height="48" aria-hidden="true">
      <circle cx="24" cy="24" r="22" fill="none" stroke="currentColor" strokeWidth="3" />
      <path d="M14 25l7 7 13-15" fill="none" stroke="currentColor" strokeWidth="3.5" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/** A chevron pointing right: "continue" on an organization the member already belongs to. */
export function ArrowIcon() {
  return (
    <svg className="lk-icon lk-icon--arrow" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
