// Shared harness for the browser end-to-end tests.
//
// Every test file calls useHarness() once. That starts, for this file only:
//   - the REAL server binary (bin/latchkey dev) on a free loopback port with a fresh SQLite file,
//   - a project created through the real CLI, whose redirect URL and allowed origin are
//   - a tiny host page server on ANOTHER port (so the widget talks to the API cross-origin and CORS
//     is exercised, as on a customer's site),
//   - one Chromium (Debian's /usr/bin/chromium; a browser is never downloaded).
// Files therefore share nothing and can run in parallel (`node --test --test-concurrency=2`).
// Processes are stopped by pid in after(); nothing here ever kills by name.

import { after, before, test } from 'node:test';
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile, copyFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const execFileP = promisify(execFile);

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = process.env.LATCHKEY_BIN || path.join(ROOT, 'bin', 'latchkey');
export const ARTIFACTS = path.join(ROOT, 'e2e', 'artifacts');
export const AXE_PATH = fileURLToPath(new URL('./node_modules/axe-core/axe.min.js', import.meta.url));

// Texts a person sees, verbatim from the widget spec (and the widget's strings table). Kept in one
// place so a wording change is one edit, not a hunt through every test.
export const TEXT = {
  continueTo: (org) => `Continue to ${org}`,
  continueWithEmail: 'Continue with email',
  emailMeALink: 'Email me a link',
  emailMeACode: 'Email me a code',
  otpLabel: 'One-time passcode',
  wrongCode: 'Invalid passcode, please try again.',
  loggedIn: 'You have successfully logged in.',
  errorTitle: 'Looks like there was an error!',
  goBack: 'Go back',
  orgNotFound:
    'The organization you are looking for could not be found. If you think this is a mistake, contact your admin.',
  signUpOrLogIn: 'Sign up or log in',
  checkEmail: 'Check your email',
  selectOrg: 'Select an organization to continue',
  orgList: 'Your organizations',
  join: 'Join',
  acceptInvite: 'Accept Invite',
  createOrg: 'Create an organization',
  createOrgTitle: 'Create an organization to get started',
  createOrgBody: (email) => `${email} does not belong to any organizations yet.`,
  noOrgsTitle: (email) => `${email} does not belong to any organizations.`,
  tryDifferentEmail: 'Try a different email address',
  or: 'or',
  lastUsed: 'Last used',
  continueWith: (provider) => `Continue with ${provider}`,
  jitDenied: (email, org) =>
    `${email} does not have access to ${org}. If you think this is a mistake, contact your admin.`,
  missingSelector: (sel) =>
    `The selector you specified (${sel}) applies to no DOM elements that are currently on the page. ` +
    'Make sure the element exists on the page before calling mountLogin()',
};

// Bounds for everything that waits; a hung server or widget fails the test instead of the run.
const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;
const CLI_TIMEOUT_MS = 20_000;
const MAIL_TIMEOUT_MS = 15_000;
export const TEST_TIMEOUT_MS = 90_000;
// Each action or wait; the vendor's Admin Portal (MUI) re-renders its lists after a save, and on a
// loaded two-core CI machine that took over 10 s twice (the list was there in the failure's screenshot).
// A hung page still fails the test, within TEST_TIMEOUT_MS.
const ACTION_TIMEOUT_MS = 20_000;
const NAV_TIMEOUT_MS = 15_000;

export const CHROMIUM_ARGS = [
  '--no-sandbox', // running as root in CI containers
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking', // no calls out of the sandboxed network
  '--disable-component-update',
  '--disable-sync',
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A free TCP port on 127.0.0.1 (the kernel picks it; we close and hand it to the server). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Polls fn until it returns a truthy value or the deadline passes; the last error is reported. */
export async function waitUntil(fn, { timeout = 10_000, interval = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await sleep(interval);
  }
}

/** Keeps the last `max` bytes of a stream's output for error messages. */
function tailBuffer(max = 8192) {
  let text = '';
  return {
    push(chunk) {
      text = (text + chunk.toString('utf8')).slice(-max);
    },
    get text() {
      return text;
    },
  };
}

function slugify(s) {
  return s.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').slice(0, 80);
}

/** Host page HTML: the customer's login page, served from a different origin than the API. */
function hostPage({ apiBase, publicToken, pageUrl, defaultSlug, defaults }) {
  // JSON inside <script type=application/json>: escape '<' so no value can close the element.
  const cfg = JSON.stringify({ publicToken, pageUrl, defaultSlug, defaults }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>E2E host page</title>
</head>
<body>
<main>
<h1>E2E host page</h1>
<div id="root"></div>
<h2>Session</h2>
<pre id="session">no session</pre>
<pre id="mount-error"></pre>
</main>
<script type="application/json" id="e2e-config">${cfg}</script>
<script src="${apiBase}/widget/latchkey.js"></script>
<script>
(function () {
  var cfg = JSON.parse(document.getElementById('e2e-config').textContent);
  var q = new URLSearchParams(location.search);
  // The magic link lands on the bare registered URL (redirect URLs must match exactly), so every
  // parameter falls back to the page defaults the test configured for this page server.
  function param(name) {
    var v = q.get(name);
    return v !== null ? v : Object.prototype.hasOwnProperty.call(cfg.defaults, name) ? String(cfg.defaults[name]) : null;
  }
  var slug = param('slug') || cfg.defaultSlug;
  var products = (param('products') || 'emailMagicLinks,emailOtp').split(',');
  var flow = param('flow') || 'Organization';
  var flags = function (name) {
    var v = param(name);
    return v ? v.split(',') : [];
  };
  window.client = new Latchkey.B2BClient(param('publicToken') || cfg.publicToken);
  var out = document.getElementById('session');
  client.session.onChange(function (s) {
    // Accept both shapes: the member session itself, or {member_session, member, organization}.
    var ms = s && (s.member_session || s);
    out.textContent = ms
      ? JSON.stringify({ member_session_id: ms.member_session_id, member_id: ms.member_id, organization_id: ms.organization_id })
      : 'no session';
  });
  var config = {
    products: products,
    authFlowType: flow,
    sessionOptions: { sessionDurationMinutes: 60 },
    emailMagicLinksOptions: {
      loginRedirectURL: cfg.pageUrl, signupRedirectURL: cfg.pageUrl, discoveryRedirectURL: cfg.pageUrl,
    },
  };
  // Discovery has no organization to look up; a slug would only be noise there.
  if (flow !== 'Discovery' && slug) config.organizationSlug = slug;
  var providers = flags('oauth');
  // oneTap=true: the google entry asks for Google One Tap.
  if (param('oneTap') === 'true') {
    providers = providers.map(function (p) { return p === 'google' ? { type: 'google', one_tap: true } : p; });
  }
  if (providers.length > 0) {
    config.oauthOptions = {
      providers: providers,
      loginRedirectURL: cfg.pageUrl, signupRedirectURL: cfg.pageUrl, discoveryRedirectURL: cfg.pageUrl,
    };
  }
  // directLogin=on, or a list of its flags (ignoreInvites, ignoreJitProvisioning): status is implied.
  var direct = flags('directLogin');
  if (direct.length > 0) {
    config.directLoginForSingleMembership = {
      status: true,
      ignoreInvites: direct.indexOf('ignoreInvites') >= 0,
      ignoreJitProvisioning: direct.indexOf('ignoreJitProvisioning') >= 0,
    };
  }
  if (param('directCreate') === 'true') config.directCreateOrganizationForNoMembership = true;
  if (param('disableCreate') === 'true') config.disableCreateOrganization = true;
  window.e2eConfig = config;
  if (q.get('mount') !== 'none') {
    try {
      client.mountLogin({ elementId: '#root', config: window.e2eConfig });
    } catch (e) {
      document.getElementById('mount-error').textContent = String(e && e.message);
    }
  }
})();
</script>
</body>
</html>
`;
}

/**
 * Sets up servers and a browser for the calling test file (before/after hooks are registered here)
 * and returns the harness. Its fields are filled in once before() has run.
 *
 * Options (for pages other than our widget's /login, e.g. a page running a third-party SDK):
 *   routes: {'/path': (h, url) => ({status?, type, body}) | htmlString} served by the page server;
 *   redirectPaths: ['/path', ...] registered as extra redirect URLs of the project (every type),
 *     after /login, so /login stays the default redirect.
 *   browser: false for a file that needs no Chromium (backend-only tests).
 */
export function useHarness({ routes = {}, redirectPaths = [], browser = true } = {}) {
  const h = new Harness({ routes, redirectPaths, browser });
  before(() => h.ready(), { timeout: 60_000 });
  after(() => h.stop(), { timeout: 30_000 });
  return h;
}

class Harness {
  constructor({ routes = {}, redirectPaths = [], browser = true } = {}) {
    this.routes = routes;
    this.redirectPaths = redirectPaths;
    this.wantBrowser = browser;
    this.tmp = '';
    this.port = 0; // API server
    this.pagePort = 0; // host page server
    this.child = null;
    this.output = tailBuffer();
    this.browser = null;
    this.project = null; // {project_id, secret, public_token}
    this.defaultSlug = '';
    // Host page parameters used when the address has none (a redirect lands on the bare URL):
    // slug, products, flow (Discovery|Organization), oauth (providers), directLogin (on, or its
    // flags), directCreate, disableCreate, publicToken.
    this.pageDefaults = {};
    this.failed = false;
    this.pageServer = null;
    this.starting = null; // the start, once begun (ready)
  }

  /** The base URL the browser uses (localhost, as configured in LATCHKEY_BASE_URL). */
  get base() {
    return `http://localhost:${this.port}`;
  }

  /** Node talks to the API over 127.0.0.1 so it never depends on how localhost resolves (::1 or not). */
  get apiBase() {
    return `http://127.0.0.1:${this.port}`;
  }

  get pageOrigin() {
    return `http://localhost:${this.pagePort}`;
  }

  /** The redirect URL registered for the project: exactly this, without a query string. */
  get pageUrl() {
    return `${this.pageOrigin}/login`;
  }

  /** Host page URL with widget parameters, e.g. pageUrlWith({slug:'acme', products:'emailOtp'}). */
  pageUrlWith(params = {}) {
    const u = new URL(this.pageUrl);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.toString();
  }

  get env() {
    return {
      ...process.env,
      LATCHKEY_DATABASE_URL: path.join(this.tmp, 'latchkey.db'),
      LATCHKEY_BASE_URL: this.base,
      // The tests' identity providers (samlidp, oidc-provider) listen on loopback, which SSO's
      // guarded fetches refuse unless allowlisted (`latchkey dev` adds it too; said here, not assumed).
      LATCHKEY_SSO_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
    };
  }

  /**
   * Starts the servers and the browser once and returns that start. Node runs a root-level before()
   * hook as soon as it is registered, without waiting for the hooks registered earlier, so a test
   * file's own before() that uses the harness's fields (project, tmp, env) awaits this first.
   */
  ready() {
    this.starting ??= this.start();
    return this.starting;
  }

  async start() {
    this.tmp = await mkdtemp(path.join(os.tmpdir(), 'latchkey-e2e-'));
    await this.startPageServer();
    await this.startServer();
    this.project = await this.createProject();
    if (this.wantBrowser) {
      this.browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    }
  }

  async startPageServer() {
    this.pageServer = http.createServer((req, res) => {
      const url = new URL(req.url, this.pageOrigin);
      if (req.method === 'GET' && url.pathname === '/login') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(
          hostPage({
            apiBase: this.base,
            publicToken: this.project?.public_token ?? '',
            pageUrl: this.pageUrl,
            defaultSlug: this.defaultSlug,
            defaults: this.pageDefaults,
          }),
        );
        return;
      }
      const route = req.method === 'GET' && Object.hasOwn(this.routes, url.pathname) ? this.routes[url.pathname] : null;
      if (route) {
        let out;
        try {
          out = route(this, url);
        } catch (e) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(e?.stack ?? e));
          return;
        }
        if (typeof out === 'string') out = { type: 'text/html; charset=utf-8', body: out };
        res.writeHead(out.status ?? 200, { 'content-type': out.type, 'cache-control': 'no-store' });
        res.end(out.body);
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    });
    await new Promise((resolve, reject) => {
      this.pageServer.once('error', reject);
      this.pageServer.listen(0, '127.0.0.1', resolve);
    });
    this.pagePort = this.pageServer.address().port;
  }

  async startServer() {
    // freePort() closes its socket before the server binds, so another process can win the port in
    // between; if the server exits early we retry on a new port (bounded).
    let lastErr;
    for (let attempt = 1; attempt <= 3; attempt++) {
      this.port = await freePort();
      try {
        await this.spawnServer();
        return;
      } catch (e) {
        lastErr = e;
        await this.stopServer();
        if (!/exited/.test(e.message)) break;
      }
    }
    throw lastErr;
  }

  async spawnServer() {
    this.output = tailBuffer();
    const log = createWriteStream(path.join(this.tmp, 'server.log'), { flags: 'a' });
    const child = spawn(BIN, ['dev', '--addr', `127.0.0.1:${this.port}`], {
      env: this.env,
      cwd: this.tmp,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.once('error', (e) => this.output.push(Buffer.from(`spawn error: ${e.message}\n`)));
    for (const s of [child.stdout, child.stderr]) {
      s.on('data', (d) => {
        this.output.push(d);
        log.write(d);
      });
    }
    child.once('exit', () => log.end());
    // Backstop: if the test process dies without running after(), do not leave the server behind.
    this.onExit = () => child.exitCode === null && child.kill('SIGKILL');
    process.once('exit', this.onExit);

    let exitInfo = null;
    this.exited.then((x) => (exitInfo = x));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (exitInfo) {
        throw new Error(
          `latchkey exited before it was ready (code ${exitInfo.code}, signal ${exitInfo.signal}); output:\n${this.output.text}`,
        );
      }
      try {
        const res = await fetch(`${this.apiBase}/readyz`, { signal: AbortSignal.timeout(1000) });
        await res.arrayBuffer();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() >= deadline) {
        throw new Error(`latchkey not ready (GET /readyz != 200) after ${READY_TIMEOUT_MS} ms; output:\n${this.output.text}`);
      }
      await sleep(100);
    }
  }

  async stopServer() {
    const child = this.child;
    if (!child) return;
    this.child = null;
    process.removeListener('exit', this.onExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      // An unref'd timer, so a quick exit does not keep this process alive for the whole grace period.
      let timer;
      const grace = new Promise((r) => (timer = setTimeout(() => r(false), STOP_TIMEOUT_MS)));
      timer.unref();
      const done = await Promise.race([this.exited.then(() => true), grace]);
      clearTimeout(timer);
      if (!done) {
        child.kill('SIGKILL');
        await this.exited;
      }
    }
  }

  async createProject() {
    const args = ['project', 'create', '--name', 'E2E', '--redirect-url', this.pageUrl, '--origin', this.pageOrigin];
    for (const p of this.redirectPaths) args.push('--redirect-url', `${this.pageOrigin}${p}`);
    let out;
    try {
      out = await execFileP(BIN, args, { env: this.env, cwd: this.tmp, timeout: CLI_TIMEOUT_MS });
    } catch (e) {
      throw new Error(`latchkey ${args.join(' ')} failed: ${e.message}\nstdout: ${e.stdout}\nstderr: ${e.stderr}`);
    }
    const text = out.stdout.trim();
    let project;
    try {
      project = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
    } catch {
      throw new Error(`project create did not print JSON: ${text}\nstderr: ${out.stderr}`);
    }
    for (const k of ['project_id', 'secret', 'public_token']) {
      if (typeof project[k] !== 'string' || project[k] === '') {
        throw new Error(`project create output lacks ${k}: ${text}`);
      }
    }
    return project;
  }

  async stop() {
    await this.browser?.close().catch(() => {});
    await this.stopServer();
    if (this.pageServer) {
      this.pageServer.closeAllConnections();
      await new Promise((r) => this.pageServer.close(() => r()));
    }
    if (this.failed && this.tmp) {
      // Keep the server's log next to the screenshots; the temp dir itself goes away.
      await mkdir(ARTIFACTS, { recursive: true });
      const name = `server-${path.basename(process.argv[1] ?? 'e2e', '.mjs')}-${this.port}.log`;
      await copyFile(path.join(this.tmp, 'server.log'), path.join(ARTIFACTS, name)).catch(() => {});
    }
    if (this.tmp) await rm(this.tmp, { recursive: true, force: true });
  }

  // --- backend API (project_id:secret) ----------------------------------------------------------

  /** Calls the backend API and returns the parsed JSON; a non-2xx status throws with the body. */
  async api(method, urlPath, body) {
    return this.apiAs(this.project, method, urlPath, body);
  }

  /** Like api(), with the credentials of another project (one made by createProject()). */
  async apiAs(project, method, urlPath, body) {
    const auth = Buffer.from(`${project.project_id}:${project.secret}`).toString('base64');
    const res = await fetch(`${this.apiBase}${urlPath}`, {
      method,
      headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) {
      const err = new Error(`${method} ${urlPath} -> ${res.status}: ${text}`);
      err.status = res.status;
      err.body = text;
      throw err;
    }
    return JSON.parse(text);
  }

  /**
   * Creates an organization; jit is ALL_ALLOWED, RESTRICTED or NOT_ALLOWED; `extra` holds any other
   * fields of the create call (auth_methods, allowed_auth_methods, organization_logo_url, ...).
   * Invites are ALL_ALLOWED unless `extra` says otherwise: a create that names auth settings would
   * otherwise get email_invites NOT_ALLOWED, as the API family defaults it.
   */
  async createOrg({ name, slug, jit = 'ALL_ALLOWED', domains = [], extra = {} }) {
    const r = await this.api('POST', '/v1/b2b/organizations', {
      organization_name: name,
      organization_slug: slug,
      email_jit_provisioning: jit,
      email_allowed_domains: domains,
      email_invites: 'ALL_ALLOWED',
      ...extra,
    });
    if (!r.organization?.organization_id) throw new Error(`no organization_id in ${JSON.stringify(r)}`);
    return r.organization;
  }

  async createMember(organizationId, email, name = 'E2E Member') {
    const r = await this.api('POST', `/v1/b2b/organizations/${encodeURIComponent(organizationId)}/members`, {
      email_address: email,
      name,
    });
    if (!r.member?.member_id) throw new Error(`no member_id in ${JSON.stringify(r)}`);
    return r.member;
  }

  /**
   * A member whose address is proven, as after a first login: created, then logged in once by an
   * emailed code through the backend. Discovery offers an organization to the people of an allowed
   * domain (email or SSO JIT) only when such a member at that domain vouches for it.
   */
  async createVerifiedMember(organizationId, email, name = 'E2E Member') {
    const member = await this.createMember(organizationId, email, name);
    const seen = (await this.mailbox(email)).map((m) => m.id);
    await this.api('POST', '/v1/b2b/otps/email/login_or_signup', { organization_id: organizationId, email_address: email });
    const code = codeOf(await this.waitForMail(email, { exclude: seen }));
    await this.api('POST', '/v1/b2b/otps/email/authenticate', { organization_id: organizationId, email_address: email, code });
    return member;
  }

  /** Server-side view of a session token: {member_session, member, organization, ...}. */
  async authenticateSession(sessionToken) {
    return this.api('POST', '/v1/b2b/sessions/authenticate', { session_token: sessionToken });
  }

  // --- dev mailbox --------------------------------------------------------------------------------

  /** Messages captured for one recipient, newest first. */
  async mailbox(to) {
    const res = await fetch(`${this.apiBase}/dev/mailbox/messages?to=${encodeURIComponent(to)}`, {
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET /dev/mailbox/messages -> ${res.status}: ${text}`);
    const body = JSON.parse(text);
    if (!Array.isArray(body.messages)) throw new Error(`mailbox answer has no messages array: ${text}`);
    return body.messages;
  }

  /**
   * Waits (bounded) for a message to `to` whose id is not in `exclude` (pass the ids seen before an
   * action to get the mail that action sent) and returns the newest such message.
   */
  async waitForMail(to, { exclude = [], timeout = MAIL_TIMEOUT_MS } = {}) {
    const seen = new Set(exclude);
    return waitUntil(
      async () => (await this.mailbox(to)).find((m) => !seen.has(m.id) && m.to?.includes(to)),
      { timeout, interval: 200, what: `an email to ${to}` },
    );
  }

  // --- browser ------------------------------------------------------------------------------------

  /** A fresh, isolated browser context (own cookies and storage) with bounded timeouts. */
  async newContext() {
    const context = await this.browser.newContext({ viewport: { width: 1000, height: 900 } });
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(NAV_TIMEOUT_MS);
    const logs = [];
    context.on('page', (p) => watchPage(p, logs));
    context.e2eLogs = logs;
    return context;
  }

  /**
   * Registers a node:test test that gets a fresh context and page. On failure it saves a screenshot
   * of every open page plus the browser console into e2e/artifacts/, then rethrows.
   */
  test(name, fn, { timeout = TEST_TIMEOUT_MS } = {}) {
    test(name, { timeout }, async (t) => {
      const contexts = [];
      const newContext = async () => {
        const c = await this.newContext();
        contexts.push(c);
        return c;
      };
      const context = await newContext();
      const page = await context.newPage();
      try {
        await fn({ page, context, newContext, t });
      } catch (err) {
        this.failed = true;
        await this.saveArtifacts(name, contexts).catch((e) => t.diagnostic(`artifacts not saved: ${e.message}`));
        throw err;
      } finally {
        for (const c of contexts) await c.close().catch(() => {});
      }
    });
  }

  async saveArtifacts(name, contexts) {
    await mkdir(ARTIFACTS, { recursive: true });
    const base = path.join(ARTIFACTS, slugify(name));
    let i = 0;
    for (const c of contexts) {
      for (const p of c.pages()) {
        i++;
        await p.screenshot({ path: `${base}-${i}.png`, fullPage: true, timeout: 5000 }).catch(() => {});
      }
      await writeFile(`${base}-console.txt`, c.e2eLogs.join('\n') + '\n', { flag: 'a' });
    }
  }
}

function watchPage(page, logs) {
  page.on('console', (m) => logs.push(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  page.on('requestfailed', (r) => logs.push(`[requestfailed] ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
}

// --- widget helpers -------------------------------------------------------------------------------

/** The value of a cookie visible to `url` in this context, or undefined. */
export async function cookieValue(context, url, name) {
  return (await context.cookies(url)).find((c) => c.name === name)?.value;
}

/**
 * Types a passcode the way a person does: digit by digit, with no submit click (the widget submits
 * by itself at 6 digits). Works for one input and for one box per digit.
 */
export async function enterCode(scope, code) {
  const inputs = scope.getByLabel(TEXT.otpLabel);
  await inputs.first().waitFor({ state: 'visible' });
  const n = await inputs.count();
  if (n === 1) {
    await inputs.fill('');
    await inputs.pressSequentially(code, { delay: 30 });
    return;
  }
  if (n !== code.length) throw new Error(`expected 1 or ${code.length} passcode inputs, found ${n}`);
  for (let i = 0; i < n; i++) {
    await inputs.nth(i).fill('');
    await inputs.nth(i).pressSequentially(code[i]);
  }
}

/** A six-digit code guaranteed to differ from `code`. */
export function wrongCode(code) {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

/** The single 6-digit code of an email (the mailbox extracts them into `codes`). */
export function codeOf(mail) {
  const code = mail.codes?.[0];
  if (!/^\d{6}$/.test(code ?? '')) throw new Error(`no 6-digit code in mail: ${JSON.stringify(mail)}`);
  return code;
}

/** A unique, readable email address for one test. */
export function uniqueEmail(prefix, domain = 'example.test') {
  return `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}@${domain}`;
}
