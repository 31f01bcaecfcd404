import { useCallback, useEffect, useRef, useState } from 'react';
import type { ActionResult } from './controller';

/**
 * Tracks one controller call for a form: `busy` while it runs (its button spins and ignores presses)
 * and the message of a failure for display under the field.
 */
export function useAsyncAction<A extends unknown[]>(action: (...args: A) => Promise<ActionResult>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const run = useCallback(
    async (...args: A): Promise<ActionResult> => {
      setBusy(true);
      setError(null);
      const result = await action(...args);
      // A success usually navigates away, unmounting the form.
      if (mounted.current) {
        setBusy(false);
        if (!result.ok) setError(result.message);
      }
      return result;
    },
    [action],
  );

  return { run, busy, error, setError };
}
