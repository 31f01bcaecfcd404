import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../clock';
import { Debouncer, STRENGTH_DEBOUNCE_MS } from './passwordReset';

describe('Debouncer (fake timers, the production clock)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits the spec’s 500 ms after the last call and runs only the last one', () => {
    expect(STRENGTH_DEBOUNCE_MS).toBe(500);
    const d = new Debouncer(systemClock, STRENGTH_DEBOUNCE_MS);
    const seen: string[] = [];
    d.schedule(() => seen.push('c'));
    vi.advanceTimersByTime(300);
    d.schedule(() => seen.push('co'));
    vi.advanceTimersByTime(499);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(['co']);
    vi.advanceTimersByTime(5000);
    expect(seen).toEqual(['co']);
  });

  it('cancel drops the pending call, and the debouncer can be used again', () => {
    const d = new Debouncer(systemClock, 500);
    const seen: number[] = [];
    d.schedule(() => seen.push(1));
    d.cancel();
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([]);
    d.schedule(() => seen.push(2));
    vi.advanceTimersByTime(500);
    expect(seen).toEqual([2]);
    d.cancel(); // nothing pending: harmless
  });
});
