import { describe, expect, it } from 'vitest';
import { DEFAULT_THEME, themeVariables } from './theme';

/** WCAG 2 relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe('themeVariables', () => {
  it('uses the spec defaults', () => {
    const vars = themeVariables(undefined);
    expect(vars['--lk-container-width']).toBe('400px');
    expect(vars['--lk-container-border-radius']).toBe('8px');
    expect(vars['--lk-button-primary-radius']).toBe('4px');
    expect(vars['--lk-input-height']).toBe('47px');
    expect(vars['--lk-font-size']).toBe('16px');
    expect(vars['--lk-header-font-size']).toBe('24px');
  });

  it('default placeholder text has at least 4.5:1 contrast on the default input background (WCAG 1.4.3)', () => {
    const vars = themeVariables(undefined);
    expect(contrast(vars['--lk-input-placeholder'], vars['--lk-input-background'])).toBeGreaterThanOrEqual(4.5);
    expect(contrast(vars['--lk-input-placeholder'], vars['--lk-container-background'])).toBeGreaterThanOrEqual(4.5);
  });

  it('maps every styles option to its custom property', () => {
    const vars = themeVariables({
      container: { width: '360px', borderColor: '#111', borderRadius: '0', backgroundColor: '#fafafa' },
      colors: { primary: '#222', secondary: '#333', success: '#0a0', error: '#a00' },
      buttons: {
        primary: { backgroundColor: '#00f', textColor: '#fff', borderColor: '#00e', borderRadius: '12px' },
        secondary: { backgroundColor: '#eee', textColor: '#000', borderColor: '#ddd', borderRadius: '2px' },
      },
      inputs: { backgroundColor: '#fff', borderColor: '#999', textColor: '#123', placeholderColor: '#aaa', borderRadius: '6px' },
      fontFamily: 'Inter, sans-serif',
    });
    expect(vars).toMatchObject({
      '--lk-container-width': '360px',
      '--lk-container-border-color': '#111',
      '--lk-container-border-radius': '0',
      '--lk-container-background': '#fafafa',
      '--lk-color-error': '#a00',
      '--lk-button-primary-background': '#00f',
      '--lk-button-primary-radius': '12px',
      '--lk-button-secondary-text': '#000',
      '--lk-input-placeholder': '#aaa',
      '--lk-input-radius': '6px',
      '--lk-font-family': 'Inter, sans-serif',
    });
  });

  it('ignores empty and non-string values', () => {
    const vars = themeVariables({ container: { width: '' }, colors: { primary: 7 as unknown as string } });
    expect(vars['--lk-container-width']).toBe(DEFAULT_THEME['--lk-container-width']);
    expect(vars['--lk-color-primary']).toBe(DEFAULT_THEME['--lk-color-primary']);
  });
});
