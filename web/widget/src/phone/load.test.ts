import { describe, expect, it } from 'vitest';
import { ManualClock } from '../test/manualClock';
import * as lib from './lib';
import { FORMAT_TIMEOUT_MS, formatPhoneNumber, importPhoneLib, PARSE_TIMEOUT_MS, parsePhoneNumber, type PhoneLib } from './load';

/** A loader that answers only when the test says so. */
function slowLoader() {
  let release: (l: PhoneLib) => void = () => undefined;
  const promise = new Promise<PhoneLib>((r) => (release = r));
  return { load: () => promise, release: () => release(lib) };
}

const settled = async <T,>(p: Promise<T>) => {
  let out: { value: T } | null = null;
  void p.then((value) => (out = { value }));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return out as { value: T } | null;
};

describe('phone library', () => {
  it('parses national and international input to E.164 and rejects impossible numbers', async () => {
    const clock = new ManualClock();
    expect(await parsePhoneNumber(importPhoneLib, clock, 'US', '(415) 555-2671')).toEqual({ valid: true, e164: '+14155552671' });
    expect(await parsePhoneNumber(importPhoneLib, clock, 'US', '+44 20 7946 0958')).toEqual({ valid: true, e164: '+442079460958' });
    expect(await parsePhoneNumber(importPhoneLib, clock, 'GB', '020 7946 0958')).toEqual({ valid: true, e164: '+442079460958' });
    expect((await parsePhoneNumber(importPhoneLib, clock, 'US', '123')).valid).toBe(false);
    expect((await parsePhoneNumber(importPhoneLib, clock, 'US', 'not a number')).valid).toBe(false);
  });

  it('formats E.164 numbers for display', async () => {
    expect(await formatPhoneNumber(importPhoneLib, new ManualClock(), '+14155552671')).toBe('+1 415 555 2671');
  });

  it('parsing waits 2 s at most, then treats +{calling code}{digits} as valid', async () => {
    const clock = new ManualClock();
    const slow = slowLoader();
    const parsing = parsePhoneNumber(slow.load, clock, 'GB', '07946 095-800');
    clock.advance(PARSE_TIMEOUT_MS - 1);
    expect(await settled(parsing)).toBeNull();
    clock.advance(1);
    expect(await parsing).toEqual({ valid: true, e164: '+4407946095800' });
    // Typed with a "+", the digits already carry the calling code.
    const intl = parsePhoneNumber(slow.load, clock, 'GB', '+1 415 555 2671');
    clock.advance(PARSE_TIMEOUT_MS);
    expect(await intl).toEqual({ valid: true, e164: '+14155552671' });
  });

  it('a library that answers in time wins over the fallback', async () => {
    const clock = new ManualClock();
    const slow = slowLoader();
    const parsing = parsePhoneNumber(slow.load, clock, 'US', '123');
    clock.advance(PARSE_TIMEOUT_MS - 1);
    slow.release();
    // The fallback would have called it valid.
    expect((await parsing).valid).toBe(false);
  });

  it('formatting waits 10 s at most, then shows the raw text; a failed load falls back at once', async () => {
    const clock = new ManualClock();
    const slow = slowLoader();
    const formatting = formatPhoneNumber(slow.load, clock, '+14155552671');
    clock.advance(FORMAT_TIMEOUT_MS - 1);
    expect(await settled(formatting)).toBeNull();
    clock.advance(1);
    expect(await formatting).toBe('+14155552671');
    const failing = () => Promise.reject(new Error('offline'));
    expect(await formatPhoneNumber(failing, clock, '+14155552671')).toBe('+14155552671');
    expect(await parsePhoneNumber(failing, clock, 'US', '4155552671')).toEqual({ valid: true, e164: '+14155552671' });
  });
});
