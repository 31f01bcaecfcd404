/**
 * Argument checks of the public client methods. Plain-JavaScript callers get no type checking, and
 * a wrong argument would otherwise surface later and elsewhere: a request body the server refuses,
 * a selector error about "1", a listener that throws on the next session change.
 */
import { SDKUsageError } from './api/errors';
import { usageEn } from './strings/usage';
import { createTranslator } from './strings/t';

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'function';
/** A required kind, or with `?` one that may also be left out (undefined; null is not left out). */
export type Rule = Kind | `${Kind}?`;

/**
 * Throws an SDKUsageError for the first `[field, value, rule]` of `args` whose value breaks its rule.
 * Synchronous, before the method does anything: a method that returns a promise throws at the call
 * rather than rejecting.
 */
export function checkArgs(method: string, args: [field: string, value: unknown, rule: Rule][]): void {
  for (const [field, value, rule] of args) {
    const kind = rule.replace('?', '') as Kind;
    if (value === undefined && rule !== kind) continue;
    // typeof says 'object' for null and arrays, neither of which is an options object.
    if (typeof value !== kind || (kind === 'object' && (value === null || Array.isArray(value)))) {
      const t = createTranslator(usageEn);
      throw new SDKUsageError(t('usage.call', { method, message: t(`usage.${kind}`, { field }) }));
    }
  }
}
