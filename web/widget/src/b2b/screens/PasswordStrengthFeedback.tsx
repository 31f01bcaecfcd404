import type { StrengthCheckResponse } from '../../api/passwords';
import type { BootstrapData } from '../../api/bootstrap';
import { useLogin } from '../context';
import { meterSegments } from '../passwordRules';

type Luds = StrengthCheckResponse['luds_feedback'];

/**
 * The LUDS counts to show: the project's (bootstrap password_config), else what the server's
 * feedback reveals (exact only while something is missing).
 */
function ludsCounts(config: BootstrapData['passwordConfig'], luds: Luds | undefined, password: string) {
  if (config) return { length: config.luds_minimum_count, complexity: config.luds_complexity };
  if (!luds) return { length: 0, complexity: 0 };
  const classes = [luds.has_lower_case, luds.has_upper_case, luds.has_digit, luds.has_symbol].filter(Boolean).length;
  return {
    length: luds.missing_characters > 0 ? [...password].length + luds.missing_characters : 0,
    complexity: luds.missing_complexity > 0 ? classes + luds.missing_complexity : 0,
  };
}

/**
 * The strength meter of a new password (spec section 5), from the server's verdict: for zxcvbn a
 * 4-segment bar with the warning and suggestions, for LUDS the length and complexity rules and the
 * breached-password warning.
 */
export function PasswordStrengthFeedback({ id, password }: { id: string; password: string }) {
  const { state, t, bootstrap } = useLogin();
  const strength = state.formState.passwordState.strength;
  const result = password ? strength.result : null;
  const luds = result ? result.strength_policy === 'luds' : bootstrap.passwordConfig !== null;

  let body;
  if (luds) {
    const counts = ludsCounts(bootstrap.passwordConfig, result?.luds_feedback, password);
    const rule = (met: boolean, text: string) => (
      <li className={met ? 'lk-rule lk-rule--met' : 'lk-rule'}>
        <span aria-hidden="true">
          {t(met ? 'password.mark.met' : 'password.mark.unmet')}
        </span>
        <span className="lk-visually-hidden">{t(met ? 'password.rule.met' : 'password.rule.unmet')} </span>
        {text}
      </li>
    );
    body = (
      <ul className="lk-rules lk-rules--checks">
        {counts.length > 0 ? rule(result?.luds_feedback.missing_characters === 0, t('password.luds.length', { count: counts.length })) : null}
        {counts.complexity > 0
          ? rule(result?.luds_feedback.missing_complexity === 0, t('password.luds.complexity', { count: counts.complexity }))
          : null}
        {result?.breached_password ? <li className="lk-rule lk-rule--breached">{t('password.luds.breached')}</li> : null}
      </ul>
    );
  } else if (result) {
    const { filled, tone } = meterSegments(result.score);
    const feedback = result.zxcvbn_feedback;
    body = (
      <>
        <div className="lk-meter" aria-hidden="true">
          {[1, 2, 3, 4].map((i) => (
            <span key={i} className={i <= filled ? `lk-meter__segment lk-meter__segment--${tone}` : 'lk-meter__segment'} />
          ))}
        </div>
        <p className="lk-text lk-text--muted">
          {t('password.strength.label', { strength: t(`password.strength.${filled}`) })}
        </p>
        {feedback.warning ? <p className="lk-text lk-meter__warning">{feedback.warning}</p> : null}
        {feedback.suggestions.length > 0 ? (
          <ul className="lk-rules">
            {feedback.suggestions.map((s) => (
              <li key={s} className="lk-rule">
                {s}
              </li>
            ))}
          </ul>
        ) : null}
      </>
    );
  }

  return (
    <div id={id} className="lk-strength" aria-live="polite">
      {body}
      {password && strength.password === password && strength.status === 'failed' ? (
        <p className="lk-error-text">{t('password.strength.failed')}</p>
      ) : null}
    </div>
  );
}
