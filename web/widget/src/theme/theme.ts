/**
 * The `styles` mount option mapped to CSS custom properties on the widget root. Defaults follow
 * spec section 9; widget.css reads only these variables, so every themable value is listed here.
 */
export interface ButtonStyle {
  backgroundColor?: string;
  textColor?: string;
  borderColor?: string;
  borderRadius?: string;
}

export interface WidgetStyles {
  container?: { width?: string; borderColor?: string; borderRadius?: string; backgroundColor?: string };
  colors?: { primary?: string; secondary?: string; success?: string; error?: string };
  buttons?: { primary?: ButtonStyle; secondary?: ButtonStyle };
  inputs?: {
    backgroundColor?: string;
    borderColor?: string;
    textColor?: string;
    placeholderColor?: string;
    borderRadius?: string;
  };
  fontFamily?: string;
  logo?: { logoImageUrl?: string };
  hideHeaderText?: boolean;
}

export const DEFAULT_THEME = {
  '--lk-container-width': '400px',
  '--lk-container-border-color': '#adbcc5',
  '--lk-container-border-radius': '8px',
  '--lk-container-background': '#ffffff',
  '--lk-color-primary': '#19303d',
  '--lk-color-secondary': '#5c727d',
  '--lk-color-success': '#0c5a56',
  '--lk-color-error': '#8b1214',
  '--lk-button-primary-background': '#19303d',
  '--lk-button-primary-text': '#ffffff',
  '--lk-button-primary-border': '#19303d',
  '--lk-button-primary-radius': '4px',
  '--lk-button-secondary-background': '#ffffff',
  '--lk-button-secondary-text': '#19303d',
  '--lk-button-secondary-border': '#19303d',
  '--lk-button-secondary-radius': '4px',
  '--lk-input-background': '#ffffff',
  '--lk-input-border': '#5c727d',
  '--lk-input-text': '#19303d',
  // 4.53:1 on the white input background (WCAG 1.4.3 asks 4.5:1 of placeholder text too).
  '--lk-input-placeholder': '#667984',
  '--lk-input-radius': '4px',
  '--lk-input-height': '47px',
  '--lk-font-family': 'Arial, Helvetica, sans-serif',
  '--lk-font-size': '16px',
  '--lk-header-font-size': '24px',
} as const;

export type ThemeVariable = keyof typeof DEFAULT_THEME;
export type ThemeVariables = Record<ThemeVariable, string>;

function set(vars: ThemeVariables, key: ThemeVariable, value: unknown): void {
  // Only non-empty strings: a plain-JS caller may pass anything, and a stray value must not
  // break the cascade (a custom property cannot inject other declarations through React's style).
  if (typeof value === 'string' && value.trim() !== '') vars[key] = value;
}

export function themeVariables(styles: WidgetStyles | undefined): ThemeVariables {
  const vars: ThemeVariables = { ...DEFAULT_THEME };
  if (!styles) return vars;
  const { container, colors, buttons, inputs } = styles;
  set(vars, '--lk-container-width', container?.width);
  set(vars, '--lk-container-border-color', container?.borderColor);
  set(vars, '--lk-container-border-radius', container?.borderRadius);
  set(vars, '--lk-container-background', container?.backgroundColor);
  set(vars, '--lk-color-primary', colors?.primary);
  set(vars, '--lk-color-secondary', colors?.secondary);
  set(vars, '--lk-color-success', colors?.success);
  set(vars, '--lk-color-error', colors?.error);
  for (const kind of ['primary', 'secondary'] as const) {
    const b = buttons?.[kind];
    set(vars, `--lk-button-${kind}-background`, b?.backgroundColor);
    set(vars, `--lk-button-${kind}-text`, b?.textColor);
    set(vars, `--lk-button-${kind}-border`, b?.borderColor);
    set(vars, `--lk-button-${kind}-radius`, b?.borderRadius);
  }
  set(vars, '--lk-input-background', inputs?.backgroundColor);
  set(vars, '--lk-input-border', inputs?.borderColor);
  set(vars, '--lk-input-text', inputs?.textColor);
  set(vars, '--lk-input-placeholder', inputs?.placeholderColor);
  set(vars, '--lk-input-radius', inputs?.borderRadius);
  set(vars, '--lk-font-family', styles.fontFamily);
  return vars;
}
