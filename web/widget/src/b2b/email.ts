/**
 * Client-side email check (spec section 5): allowed local-part characters, dot-separated domain
 * labels, and a top-level part of at least two letters. The local part's dots only separate (RFC
 * 5321 Dot-string: none first, last or doubled), as the server's rule (internal/emailaddr) says.
 * The server validates again.
 */
const EMAIL_RE =
  /^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$/;

export function isValidEmail(value: string): boolean {
  return EMAIL_RE.test(value.trim());
}
