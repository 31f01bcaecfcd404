import { useId, type ReactNode } from 'react';
import { useLogin } from '../context';

/**
 * Wraps a button marked as the last used method: the 'Last used' tag is shown beside it and
 * attached as its description, so the button's accessible name stays the method's name.
 */
export function LastUsed({ active, children }: { active: boolean; children: (describedBy: string | undefined) => ReactNode }) {
  const { t } = useLogin();
  const id = useId();
  if (!active) return <>{children(undefined)}</>;
  return (
    <div className="lk-last-used">
      {children(id)}
      <span id={id} className="lk-badge">
        {t('main.lastUsed')}
      </span>
    </div>
  );
}
