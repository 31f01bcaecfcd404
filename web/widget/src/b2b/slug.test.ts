import { describe, expect, it } from 'vitest';
import { slugFromURL, slugPatternToRegExp } from './slug';

describe('slugFromURL', () => {
  it('captures a subdomain slug', () => {
    expect(slugFromURL('https://{{slug}}.example.com', 'https://acme.example.com/login')).toBe('acme');
  });

  it('captures a path slug and ignores the query string', () => {
    expect(slugFromURL('example.com/orgs/{{slug}}/login', 'https://example.com/orgs/acme-corp/login?next=/orgs/other/login')).toBe('acme-corp');
    expect(slugFromURL('example.com/orgs/{{slug}}/login', 'https://example.com/?x=example.com/orgs/evil/login')).toBeNull();
  });

  it('treats * as exactly one DNS label', () => {
    const pattern = 'https://{{slug}}.*.example.com';
    expect(slugFromURL(pattern, 'https://acme.eu.example.com/')).toBe('acme');
    expect(slugFromURL(pattern, 'https://acme.example.com/')).toBeNull();
  });

  it('escapes dots so they only match dots', () => {
    expect(slugFromURL('https://{{slug}}.example.com', 'https://acme.exampleXcom')).toBeNull();
  });

  it('is unanchored', () => {
    expect(slugFromURL('{{slug}}.example.com', 'http://localhost:3000/?')).toBeNull();
    expect(slugFromURL('{{slug}}.example.com', 'https://www.acme.example.com')).toBe('acme');
  });

  it('returns null without a pattern or without the {{slug}} token', () => {
    expect(slugFromURL(null, 'https://acme.example.com')).toBeNull();
    expect(slugPatternToRegExp('https://example.com')).toBeNull();
  });
});

describe('slugFromURL and the fragment', () => {
  // The fragment is as much the sender's as the query: a link to the login page with
  // "#example.com/orgs/evil/login" must not pick the organization the member logs in to.
  it('ignores the fragment, with or without a query string', () => {
    const pattern = 'example.com/orgs/{{slug}}/login';
    expect(slugFromURL(pattern, 'https://example.com/login#example.com/orgs/evil/login')).toBeNull();
    expect(slugFromURL(pattern, 'https://example.com/orgs/acme/login#example.com/orgs/evil/login')).toBe('acme');
    expect(slugFromURL(pattern, 'https://example.com/login#x?example.com/orgs/evil/login')).toBeNull();
  });
});
