import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventLogger, buildTelemetry } from './telemetry';

describe('EventLogger', () => {
  let fetch: ReturnType<typeof vi.fn>;
  let logger: EventLogger;

  beforeEach(() => {
    vi.useFakeTimers();
    fetch = vi.fn(async () => new Response('{}'));
    logger = new EventLogger({
      url: 'https://auth.example.test/sdk/v1/events',
      publicToken: 'public-token-test-1',
      telemetry: () => buildTelemetry(),
      fetch: fetch as unknown as typeof globalThis.fetch,
    });
  });
  afterEach(() => vi.useRealTimers());

  const sentBatches = () => fetch.mock.calls.map(([, init]) => JSON.parse((init as RequestInit).body as string));

  it('flushes 800 ms after the first event, as one JSON array', () => {
    logger.log('a', { n: 1 });
    vi.advanceTimersByTime(500);
    logger.log('b', { n: 2 });
    vi.advanceTimersByTime(299);
    expect(fetch).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [batch] = sentBatches();
    expect(batch.map((e: { event: { event_name: string } }) => e.event.event_name)).toEqual(['a', 'b']);
    expect(batch[0].event).toEqual({ public_token: 'public-token-test-1', event_name: 'a', details: { n: 1 } });
    expect(batch[0].telemetry.sdk.identifier).toBe('Latchkey widget');
  });

  it('flushes immediately at 15 events and starts a new batch after', () => {
    for (let i = 0; i < 15; i++) logger.log(`e${i}`, {});
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(sentBatches()[0]).toHaveLength(15);
    logger.log('e15', {});
    vi.advanceTimersByTime(800);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(sentBatches()[1]).toHaveLength(1);
    // The first batch's timer was cancelled: nothing else is sent.
    vi.advanceTimersByTime(5000);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('sends no Authorization or X-SDK headers and no credentials, and ignores failures', async () => {
    fetch.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    logger.log('a', {});
    vi.advanceTimersByTime(800);
    const init = fetch.mock.calls[0]![1] as RequestInit;
    expect(init.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(init.credentials).toBeUndefined();
    await vi.runAllTimersAsync();
  });
});
