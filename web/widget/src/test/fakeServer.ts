/**
 * A fetch stand-in that answers /sdk/v1 calls from per-path handlers and records every request, so
 * tests exercise the real HTTP client down to the `fetch` boundary.
 */
export interface RecordedCall {
  url: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
  rawBody: string | undefined;
  credentials: RequestCredentials | undefined;
}

export type Reply = { status?: number; json?: unknown; text?: string; contentType?: string } | 'network-error';
type Handler = (call: RecordedCall) => Reply | Promise<Reply>;

export const ORIGIN = 'http://localhost:3000';

export function json(data: unknown): Reply {
  return { status: 200, json: { data } };
}

export function apiError(status: number, error_type: string, error_message = `${error_type} message`): Reply {
  return {
    status,
    json: { status_code: status, request_id: 'request-id-test', error_type, error_message, error_url: 'https://example.test/errors' },
  };
}

export class FakeServer {
  readonly calls: RecordedCall[] = [];
  private readonly handlers = new Map<string, Handler>();

  on(method: string, path: string, handler: Handler | Reply): this {
    this.handlers.set(`${method} ${path}`, typeof handler === 'function' ? handler : () => handler);
    return this;
  }

  callsTo(path: string): RecordedCall[] {
    return this.calls.filter((c) => c.path === path);
  }

  readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = String(input);
    const path = new URL(url).pathname.replace(/^\/sdk\/v1/, '');
    const rawBody = typeof init.body === 'string' ? init.body : undefined;
    const call: RecordedCall = {
      url,
      path,
      method: init.method ?? 'GET',
      headers: { ...(init.headers as Record<string, string>) },
      body: rawBody === undefined ? undefined : JSON.parse(rawBody),
      rawBody,
      credentials: init.credentials,
    };
    this.calls.push(call);
    const handler = this.handlers.get(`${call.method} ${path}`);
    const reply: Reply = handler ? await handler(call) : apiError(404, 'not_found', `no handler for ${path}`);
    if (reply === 'network-error') throw new TypeError('Failed to fetch');
    const status = reply.status ?? 200;
    if (reply.json !== undefined) {
      return new Response(JSON.stringify(reply.json), { status, headers: { 'Content-Type': 'application/json' } });
    }
    return new Response(reply.text ?? '', { status, headers: { 'Content-Type': reply.contentType ?? 'text/plain' } });
  };
}

export const ACME = {
  organization_id: 'organization-test-acme',
  organization_name: 'Acme',
  organization_slug: 'acme',
  organization_logo_url: '',
  sso_active_connections: [],
  sso_default_connection_id: null,
  email_jit_provisioning: 'NOT_ALLOWED',
  email_allowed_domains: [],
  auth_methods: 'ALL_ALLOWED',
  allowed_auth_methods: [],
  mfa_policy: 'OPTIONAL',
};

export const BOOTSTRAP = {
  project_name: 'Latchkey Demo',
  disable_sdk_watermark: true,
  cname_domain: null,
  email_domains: ['latchkey.test'],
  captcha_settings: { enabled: false },
  pkce_required_for_email_magic_links: false,
  pkce_required_for_password_resets: false,
  pkce_required_for_oauth: false,
  pkce_required_for_sso: false,
  slug_pattern: null,
  create_organization_enabled: false,
  password_config: null,
  dfp_protected_auth_enabled: false,
  vertical: 'B2B',
};

export function loggedInResponse(overrides: Record<string, unknown> = {}) {
  const member = {
    member_id: 'member-test-1',
    organization_id: ACME.organization_id,
    email_address: 'ada@acme.test',
    email_address_verified: true,
    member_password_id: '',
    mfa_phone_number: '',
    mfa_phone_number_verified: false,
    totp_registration_id: '',
    default_mfa_method: '',
  };
  return {
    request_id: 'request-id-test',
    status_code: 200,
    member_id: member.member_id,
    member,
    organization: ACME,
    member_session: {
      member_session_id: 'member-session-test-1',
      member_id: member.member_id,
      organization_id: ACME.organization_id,
      started_at: '2026-01-01T00:00:00Z',
      last_accessed_at: '2026-01-01T00:00:00Z',
      expires_at: '2099-01-01T00:00:00Z',
      roles: ['stytch_member'],
    },
    session_token: 'session-token-1',
    session_jwt: 'session-jwt-1',
    member_authenticated: true,
    intermediate_session_token: '',
    mfa_required: null,
    primary_required: null,
    ...overrides,
  };
}

export const GLOBEX = {
  ...ACME,
  organization_id: 'organization-test-globex',
  organization_name: 'Globex',
  organization_slug: 'globex',
  organization_logo_url: 'https://cdn.test/globex.png',
};

/** A DiscoveredOrganization entry (api-reference 3.0) for `organization`. */
export function discovered(
  organization: Record<string, unknown> = ACME,
  type = 'active_member',
  overrides: Record<string, unknown> = {},
) {
  const member =
    type === 'active_member' || type === 'pending_member' || type === 'invited_member'
      ? { ...loggedInResponse().member, organization_id: organization.organization_id }
      : null;
  return {
    organization,
    membership: { type, details: member ? null : { domain: 'acme.test' }, member },
    member_authenticated: false,
    primary_required: null,
    mfa_required: null,
    ...overrides,
  };
}

/** A discovery authenticate answer for ada@acme.test. */
export function discoveryResponse(organizations: unknown[], ist = 'ist-discovery') {
  return {
    request_id: 'request-id-test',
    status_code: 200,
    intermediate_session_token: ist,
    email_address: 'ada@acme.test',
    discovered_organizations: organizations,
    organization_id_hint: null,
  };
}
