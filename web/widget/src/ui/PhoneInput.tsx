import { useMemo } from 'react';
import { COUNTRIES } from '../phone/countries';
import { Input } from './Input';

export interface PhoneInputProps {
  id: string;
  countryLabel: string;
  phoneLabel: string;
  /** Option text from a country name and calling code, e.g. "United States (+1)". */
  optionLabel: (country: string, callingCode: string) => string;
  /** Locale of the country names (Intl.DisplayNames); the region code is shown if unknown. */
  namesLocale: string;
  country: string;
  phone: string;
  onCountryChange: (country: string) => void;
  onPhoneChange: (phone: string) => void;
  /**
   * The number is being sent: both controls hold their values but stay enabled, so the one with
   * focus keeps it (disabling a focused control sends focus to the page). A <select> cannot be
   * read-only, so the selector is marked aria-disabled and ignores changes.
   */
  busy?: boolean;
  error?: string | null;
}

function regionNames(locale: string): (code: string) => string {
  try {
    const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' });
    return (code) => {
      try {
        return names.of(code) ?? code;
      } catch {
        return code;
      }
    };
  } catch {
    return (code) => code;
  }
}

/** A country selector (with calling codes) and a national phone number field. No I/O. */
export function PhoneInput(props: PhoneInputProps) {
  const { id, countryLabel, phoneLabel, optionLabel, namesLocale, country, phone, busy = false, error } = props;
  const options = useMemo(() => {
    const nameOf = regionNames(namesLocale);
    return COUNTRIES.map((c) => ({ code: c.code, name: nameOf(c.code), callingCode: c.callingCode })).sort((a, b) =>
      a.name.localeCompare(b.name, namesLocale),
    );
  }, [namesLocale]);
  const countryId = `${id}-country`;
  return (
    <div className="lk-form">
      <div className="lk-field">
        <label className="lk-label" htmlFor={countryId}>
          {countryLabel}
        </label>
        <select
          id={countryId}
          className="lk-input"
          value={country}
          aria-disabled={busy || undefined}
          autoComplete="tel-country-code"
          // Keeps the list shut while busy, as it is for a disabled select.
          onMouseDown={(e) => {
            if (busy) e.preventDefault();
          }}
          onChange={(e) => {
            if (!busy) props.onCountryChange(e.target.value);
          }}
        >
          {options.map((o) => (
            <option key={o.code} value={o.code}>
              {optionLabel(o.name, o.callingCode)}
            </option>
          ))}
        </select>
      </div>
      <Input
        id={id}
        type="tel"
        label={phoneLabel}
        value={phone}
        onValueChange={props.onPhoneChange}
        inputMode="tel"
        autoComplete="tel-national"
        readOnly={busy}
        required
        error={error}
      />
    </div>
  );
}
