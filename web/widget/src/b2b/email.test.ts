import { describe, expect, it } from 'vitest';
import { isValidEmail } from './email';

describe('isValidEmail', () => {
  it.each(['ada@acme.test', "o'brien+tag@mail.example.co", 'a.b-c_d@sub.domain.io', "x!#$%&'*+/=?^_`{|}~-@ex.com", '  ada@acme.io  '])(
    'accepts %s',
    (email) => expect(isValidEmail(email)).toBe(true),
  );
  it.each(['', 'ada', 'ada@', '@acme.com', 'ada@acme', 'ada@acme.c', 'ada@acme.c0m', 'ada@@acme.com', 'a b@acme.com', 'ada@-acme.com', 'ada@acme..com', '.ada@acme.test', 'ada.@acme.test', 'ada..lovelace@acme.test', '.@acme.test'])(
    'rejects %s',
    (email) => expect(isValidEmail(email)).toBe(false),
  );
});
