/** Small encoding helpers that work without Node's Buffer and for non-Latin-1 input. */

export function base64FromBytes(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** base64 of the UTF-8 bytes of `text` (btoa alone throws on characters above U+00FF). */
export function base64Utf8(text: string): string {
  return base64FromBytes(new TextEncoder().encode(text));
}

export function base64Url(bytes: Uint8Array): string {
  return base64FromBytes(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * A random v4 UUID. crypto.randomUUID exists only in secure contexts, while getRandomValues works
 * everywhere, so the UUID is built from it directly.
 */
export function uuidv4(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
