import type { Screen, WidgetState } from './types';

/** Goes to `screen`, remembering the current one so `back` can return to it. */
export function push(state: WidgetState, screen: Screen): WidgetState {
  if (state.screen === screen) return state;
  return { ...state, screen, screenHistory: [...state.screenHistory, state.screen] };
}

/** Goes to `screen` and forgets the history (no way back). */
export function replace(state: WidgetState, screen: Screen): WidgetState {
  return { ...state, screen, screenHistory: [] };
}

/** Returns to the previous screen; without history it is a no-op. */
export function back(state: WidgetState): WidgetState {
  const history = state.screenHistory;
  const previous = history[history.length - 1];
  if (previous === undefined) return state;
  return { ...state, screen: previous, screenHistory: history.slice(0, -1) };
}
