import { systemClock, type Clock } from '../clock';
import { SDK_IDENTIFIER, SDK_VERSION } from '../version';
import { uuidv4 } from './encoding';

/** The object sent base64-encoded in X-SDK-Client and inside each event (api-reference 1.5). */
export interface SdkTelemetry {
  event_id: string;
  app_session_id: string;
  persistent_id: string;
  client_sent_at: string;
  timezone: string;
  app: { identifier: string };
  sdk: { identifier: string; version: string };
  stytch_member_id?: string;
  stytch_member_session_id?: string;
}

export interface TelemetryIds {
  memberId?: string | undefined;
  memberSessionId?: string | undefined;
}

export function buildTelemetry(ids: TelemetryIds = {}, now: number = Date.now()): SdkTelemetry {
  let timezone = '';
  try {
    timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    // Some embedded browsers lack Intl time zones; the field is informational only.
  }
  const telemetry: SdkTelemetry = {
    event_id: `event-id-${uuidv4()}`,
    app_session_id: `app-session-id-${uuidv4()}`,
    persistent_id: `persistent-id-${uuidv4()}`,
    client_sent_at: new Date(now).toISOString(),
    timezone,
    app: { identifier: window.location.hostname },
    sdk: { identifier: SDK_IDENTIFIER, version: SDK_VERSION },
  };
  if (ids.memberId) telemetry.stytch_member_id = ids.memberId;
  if (ids.memberSessionId) telemetry.stytch_member_session_id = ids.memberSessionId;
  return telemetry;
}

export interface TelemetryEvent {
  telemetry: SdkTelemetry;
  event: { public_token: string; event_name: string; details: unknown };
}

export const EVENT_BATCH_SIZE = 15;
export const EVENT_FLUSH_MS = 800;

export interface EventLoggerOptions {
  /** Full URL of POST /sdk/v1/events. */
  url: string;
  publicToken: string;
  telemetry: () => SdkTelemetry;
  fetch?: typeof fetch;
  clock?: Clock;
}

/**
 * Batches telemetry events: a batch is sent when it reaches 15 items or 800 ms after its first item.
 * Delivery is best effort by design (the API ignores the response), so failures are swallowed.
 */
export class EventLogger {
  private queue: TelemetryEvent[] = [];
  private timer: unknown = null;
  private readonly clock: Clock;

  constructor(private readonly opts: EventLoggerOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  log(eventName: string, details: unknown): void {
    this.queue.push({
      telemetry: this.opts.telemetry(),
      event: { public_token: this.opts.publicToken, event_name: eventName, details },
    });
    if (this.queue.length >= EVENT_BATCH_SIZE) {
      this.flush();
    } else if (this.timer === null) {
      this.timer = this.clock.setTimeout(() => {
        this.timer = null;
        this.flush();
      }, EVENT_FLUSH_MS);
    }
  }

  flush(): void {
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, EVENT_BATCH_SIZE);
      const doFetch = this.opts.fetch ?? globalThis.fetch;
      // No Authorization/X-SDK headers and no credentials: telemetry is anonymous (api-reference 1.10).
      void doFetch(this.opts.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(batch),
      }).catch(() => undefined);
    }
  }
}
