/** An inline error, announced politely when it appears. Renders nothing without a message. */
export function ErrorText({ id, message }: { id?: string; message: string | null | undefined }) {
  return (
    <p id={id} className="lk-error-text" role="alert" aria-live="polite">
      {message ?? ''}
    </p>
  );
}
