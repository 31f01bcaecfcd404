/**
 * Loads the phone library (lib.ts) on demand and bounds how long the widget waits for it (spec
 * sections 5 and 9): parsing gives up after 2 s and then treats "+{calling code}{digits}" as valid;
 * display formatting gives up after 10 s and then shows the raw text. The server validates every
 * number again, so the fallbacks cannot let a bad number through.
 *
 * The ESM build emits the library as its own chunk, dist/esm/phone.js. The standalone script cannot
 * split code, so it imports that same file from next to itself at run time (see iife.ts).
 */
import type { Clock } from '../clock';
import { callingCodeOf, DEFAULT_COUNTRY } from './countries';
import type { ParsedPhone } from './lib';

export type PhoneLib = typeof import('./lib');
export type PhoneLibLoader = () => Promise<PhoneLib>;

export const PARSE_TIMEOUT_MS = 2000;
export const FORMAT_TIMEOUT_MS = 10_000;

let iifeLibURL: string | null = null;

/** Set by the standalone build: where dist/esm/phone.js is served. */
export function setPhoneLibURL(url: string): void {
  iifeLibURL = url;
}

let pending: Promise<PhoneLib> | null = null;

/** Imports the library once; a failed load is forgotten so a later attempt can retry. */
export const importPhoneLib: PhoneLibLoader = () => {
  pending ??= (
    import.meta.env.MODE === 'iife'
      ? iifeLibURL
        ? (import(/* @vite-ignore */ iifeLibURL) as Promise<PhoneLib>)
        : Promise.reject(new Error('Latchkey: phone library URL unknown'))
      : import('./lib')
  ).catch((err: unknown) => {
    pending = null;
    throw err;
  });
  return pending;
};

/** Resolves with `work`'s value, or with `fallback()` when it fails or takes longer than `ms`. */
function within<T>(work: () => Promise<T>, ms: number, clock: Clock, fallback: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    let settled = false;
    const finish = (value: () => T) => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      resolve(value());
    };
    const timer = clock.setTimeout(() => finish(fallback), ms);
    work().then(
      (v) => finish(() => v),
      () => finish(fallback),
    );
  });
}

/** Digits only, keeping nothing else the member typed. */
const digitsOf = (text: string) => text.replace(/\D/g, '');

/** Parses a phone number entered for `country`; see the module comment for the fallback. */
export function parsePhoneNumber(load: PhoneLibLoader, clock: Clock, country: string, text: string): Promise<ParsedPhone> {
  return within(
    async () => (await load()).parsePhone(text, country),
    PARSE_TIMEOUT_MS,
    clock,
    () => {
      const international = text.trim().startsWith('+');
      const code = international ? '' : (callingCodeOf(country) ?? callingCodeOf(DEFAULT_COUNTRY));
      return { valid: true, e164: `+${code ?? ''}${digitsOf(text)}` };
    },
  );
}

/** The display form of an E.164 number, or `raw` itself when the library does not answer in time. */
export function formatPhoneNumber(load: PhoneLibLoader, clock: Clock, raw: string): Promise<string> {
  return within(async () => (await load()).formatPhone(raw), FORMAT_TIMEOUT_MS, clock, () => raw);
}
