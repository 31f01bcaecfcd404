import { Button } from '../../ui/Button';
import { useLogin } from '../context';

/** Returns to the previous screen; hidden when there is none. */
export function BackButton() {
  const { state, controller, t } = useLogin();
  if (state.screenHistory.length === 0) return null;
  return (
    <Button variant="text" onClick={() => controller.back()}>
      {t('common.back')}
    </Button>
  );
}
