/**
 * Derives the organization slug from the page address using the bootstrap `slug_pattern`
 * (api-reference section 2): the query string is removed, and so is the fragment, which whoever
 * sent the link chooses as freely (it would otherwise pick the organization); in the pattern `*`
 * stands for one DNS label and `{{slug}}` for the captured slug; the match is unanchored.
 */
const SLUG_TOKEN = '{{slug}}';
const DNS_LABEL = '[a-zA-Z0-9-]+';
const SLUG_CAPTURE = '([a-zA-Z0-9_~-]+)';

function escapeRegExp(text: string): string {
  // Escapes every metacharacter (a superset of the reference's '.') so a pattern can never
  // inject regex syntax; '*' is handled separately below.
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

export function slugPatternToRegExp(pattern: string): RegExp | null {
  if (!pattern.includes(SLUG_TOKEN)) return null;
  const source = pattern
    .split(SLUG_TOKEN)
    .map((part) => escapeRegExp(part).replace(/\*/g, DNS_LABEL))
    .join(SLUG_CAPTURE);
  return new RegExp(source);
}

export function slugFromURL(pattern: string | null, url: string): string | null {
  if (!pattern) return null;
  const re = slugPatternToRegExp(pattern);
  if (!re) return null;
  const address = url.split(/[?#]/)[0] ?? '';
  const m = re.exec(address);
  return m?.[1] ?? null;
}
