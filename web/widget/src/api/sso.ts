/**
 * SSO discovery's own call (api-reference 3.6). It lives apart from operations.ts so that it loads
 * with the SSO discovery screens, not with every login page.
 */
import type { HttpClient } from './http';
import type { ResponseCommon, SSOActiveConnection } from './types';

export interface SSODiscoverConnectionsResponse extends ResponseCommon {
  connections: SSOActiveConnection[];
}

/** The active connections of the organizations an email belongs to or may join by its domain. */
export function ssoDiscoverConnections(http: HttpClient, email: string) {
  return http.get<SSODiscoverConnectionsResponse>(
    `/b2b/sso/discovery/connections?email_address=${encodeURIComponent(email)}`,
  );
}
