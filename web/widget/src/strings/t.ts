import { en, type StringKey, type Strings, type StringsOverride } from './en';

export type Translate = (key: StringKey, vars?: Record<string, string | number>) => string;

/** Merges an integrator's partial override over English, ignoring unknown keys and non-strings. */
export function mergeStrings(override?: StringsOverride): Strings {
  const out: Strings = { ...en };
  if (!override) return out;
  for (const key of Object.keys(override) as StringKey[]) {
    const value = override[key];
    if (key in en && typeof value === 'string') out[key] = value;
  }
  return out;
}

/**
 * Builds `t(key, vars)`. `{name}` placeholders without a value are left as written so a missing
 * variable is visible in review instead of silently producing "undefined".
 */
export function createTranslator<K extends string = StringKey>(
  table: Record<K, string>,
): (key: K, vars?: Record<string, string | number>) => string {
  return (key, vars) => {
    const template = table[key];
    if (!vars) return template;
    return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
      Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
    );
  };
}
