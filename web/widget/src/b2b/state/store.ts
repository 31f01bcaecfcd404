import { reducer } from './reducer';
import type { Action, WidgetState } from './types';

/**
 * A minimal external store around the reducer. Thunks need the state as of the last dispatch
 * (not of the last render), which `useReducer` cannot give them; React reads it with
 * useSyncExternalStore.
 */
export interface Store {
  getState(): WidgetState;
  dispatch(action: Action): void;
  subscribe(listener: () => void): () => void;
}

export function createStore(initial: WidgetState): Store {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    dispatch(action) {
      const next = reducer(state, action);
      if (next === state) return;
      state = next;
      for (const l of [...listeners]) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
