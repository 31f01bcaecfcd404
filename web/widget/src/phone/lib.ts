/**
 * The phone-number library entry: libphonenumber-js with its small (`/min`) metadata. It is loaded
 * on demand (see load.ts) because it weighs about as much as the rest of the widget without React,
 * and only SMS enrollment needs it. The server validates again.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';

export interface ParsedPhone {
  valid: boolean;
  /** The number in E.164 form ("+14155552671"); empty when it cannot be parsed at all. */
  e164: string;
}

/** Parses what the member typed, read as a national number of `country` unless it starts with "+". */
export function parsePhone(text: string, country: string): ParsedPhone {
  const parsed = parsePhoneNumberFromString(text, country as CountryCode);
  if (!parsed) return { valid: false, e164: '' };
  return { valid: parsed.isValid(), e164: parsed.number };
}

/** The international display form of an E.164 number ("+1 415 555 2671"); the input when unknown. */
export function formatPhone(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}
