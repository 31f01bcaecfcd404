// RFC 6238 TOTP (HMAC-SHA1, 30-second steps, 6 digits), written from the RFC, for the browser tests that
// enrol an authenticator app. mfa.test.mjs checks it against the RFC's own test vector.
import { createHmac } from 'node:crypto';

function base32Decode(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out = [];
  for (const ch of text.toUpperCase().replace(/[\s=]/g, '')) {
    const i = alphabet.indexOf(ch);
    if (i === -1) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >>> bits) & 0xff);
    }
  }
  return Buffer.from(out);
}

/** The time step of a moment in milliseconds. */
export const stepAt = (ms) => Math.floor(ms / 1000 / 30);

/** The code of a base32 secret at a time step. */
export function totp(secret, step) {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32Decode(secret)).update(msg).digest();
  const off = mac[mac.length - 1] & 0x0f;
  return String((mac.readUInt32BE(off) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** The code of a base32 secret now. */
export const totpNow = (secret) => totp(secret, stepAt(Date.now()));
