/**
 * Reads the relying party's request from the page address (api-reference 3.14): a
 * post_logout_redirect_uri selects the Logout flow, anything else is Authorize.
 */
import type { AuthorizeBody, LogoutBody } from '../api/idp';

export const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

export type IdpRequest =
  | { flow: 'authorize'; body: AuthorizeBody }
  | { flow: 'logout'; body: LogoutBody }
  | { flow: 'invalid'; missing: string };

export function readIdpRequest(search: string): IdpRequest {
  const q = new URLSearchParams(search);
  const get = (k: string) => q.get(k) ?? undefined;
  if (q.has('post_logout_redirect_uri')) {
    for (const name of ['client_id', 'post_logout_redirect_uri']) {
      if (!q.get(name)) return { flow: 'invalid', missing: name };
    }
    return {
      flow: 'logout',
      body: {
        client_id: q.get('client_id') ?? '',
        post_logout_redirect_uri: q.get('post_logout_redirect_uri') ?? '',
        id_token_hint: get('id_token_hint'),
        state: get('state'),
      },
    };
  }
  for (const name of ['client_id', 'redirect_uri']) {
    if (!q.get(name)) return { flow: 'invalid', missing: name };
  }
  const scope = q.get('scope');
  const resources = q.getAll('resource');
  return {
    flow: 'authorize',
    body: {
      client_id: q.get('client_id') ?? '',
      redirect_uri: q.get('redirect_uri') ?? '',
      response_type: q.get('response_type') || 'code',
      scopes: scope ? scope.split(' ').filter(Boolean) : DEFAULT_SCOPES,
      code_challenge: get('code_challenge'),
      code_challenge_method: get('code_challenge_method'),
      state: get('state'),
      nonce: get('nonce'),
      prompt: get('prompt'),
      max_age: get('max_age'),
      resources: resources.length > 0 ? resources : undefined,
    },
  };
}
