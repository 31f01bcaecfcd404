/**
 * An inline error, announced politely when it appears. The live region is
 * rendered even without a message (empty), because screen readers announce
 * changes to a region already in the page, not a region that arrives with
 * its text.
 */
export function ErrorText({ id, message }: { id?: string; message: string | null | undefined }) {
  return (
    <p id={id} className="lk-error-text" role="alert" aria-live="polite">
      {message ?? ''}
    </p>
  );
}
