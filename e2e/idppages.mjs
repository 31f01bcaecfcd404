// The host pages of the identity provider tests: the operator's authorization page (the identity
// provider, and the operator's login while there is no session) and the relying party's plain pages.

/** The operator's authorization page, whose login (email codes) is for the organization slug. */
export const idpAuthorizePage = (slug) => (h) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize</title></head>
<body><main><h1>Authorize</h1><div id="root"></div><div id="login"></div></main>
<script src="${h.apiBase}/widget/latchkey.js"></script>
<script>
  window.client = new Latchkey.B2BClient(${JSON.stringify(h.project.public_token)});
  client.mountIdentityProvider({ elementId: '#root' });
  // The operator's login, shown while there is no session: the identity provider asks for one and
  // goes on once the member has logged in.
  const login = (s) => s || client.mountLogin({ elementId: '#login', config: { products: ['emailOtp'],
    organizationSlug: ${JSON.stringify(slug)}, sessionOptions: { sessionDurationMinutes: 60 } } });
  login(client.session.getSync());
  client.session.onChange(login);
</script></body></html>`;

/** A relying party's page that only names itself. */
export const rpPage = (title) => () =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1></main></body></html>`;
