import { useState, type FormEvent } from 'react';
import { DEFAULT_COUNTRY } from '../../../phone/countries';
import { Button } from '../../../ui/Button';
import { Heading } from '../../../ui/Heading';
import { PhoneInput } from '../../../ui/PhoneInput';
import { useLogin } from '../../context';
import { useAsyncAction } from '../../useAsyncAction';
import { BackButton } from '../BackButton';

/** The member enters the number to enroll (country selector, default US) and gets a code. */
export function SMSOTPEnrollmentScreen() {
  const { state, controller, t } = useLogin();
  const enrolled = state.mfa.smsOtp.enrolledNumber;
  const [country, setCountry] = useState(enrolled?.countryCode ?? DEFAULT_COUNTRY);
  const [phone, setPhone] = useState(enrolled?.phoneNumber ?? '');
  const send = useAsyncAction(() => controller.mfa.enrollPhone(country, phone.trim()));
  const busy = send.busy || state.mfa.smsOtp.isSending;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (phone.trim() === '') {
      send.setError(t('mfa.smsEnroll.phoneRequired'));
      return;
    }
    void send.run();
  };

  return (
    <>
      <Heading>{t('mfa.smsEnroll.title')}</Heading>
      <p className="lk-text">{t('mfa.smsEnroll.body')}</p>
      <form className="lk-form" onSubmit={onSubmit} noValidate>
        <PhoneInput
          id="phone-input"
          countryLabel={t('mfa.smsEnroll.countryLabel')}
          phoneLabel={t('mfa.smsEnroll.phoneLabel')}
          optionLabel={(name, callingCode) => t('mfa.smsEnroll.countryOption', { country: name, callingCode })}
          namesLocale={t('mfa.smsEnroll.countryNamesLocale')}
          country={country}
          phone={phone}
          onCountryChange={setCountry}
          onPhoneChange={setPhone}
          busy={busy}
          error={send.error}
        />
        <Button type="submit" loading={busy}>
          {t('mfa.smsEnroll.submit')}
        </Button>
      </form>
      <BackButton />
    </>
  );
}
