import { getCountries, getCountryCallingCode } from 'libphonenumber-js/min';
import { describe, expect, it } from 'vitest';
import { callingCodeOf, COUNTRIES, DEFAULT_COUNTRY } from './countries';

describe('dialling-code table', () => {
  it('is exactly the regions and calling codes of the pinned libphonenumber-js metadata', () => {
    const expected = getCountries()
      .map((code) => ({ code, callingCode: getCountryCallingCode(code) }))
      .sort((a, b) => a.code.localeCompare(b.code));
    expect(COUNTRIES).toEqual(expected);
  });

  it('defaults to the United States (+1)', () => {
    expect(DEFAULT_COUNTRY).toBe('US');
    expect(callingCodeOf('US')).toBe('1');
    expect(callingCodeOf('GB')).toBe('44');
    expect(callingCodeOf('ZZ')).toBeUndefined();
  });
});
