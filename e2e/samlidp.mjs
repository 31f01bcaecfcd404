// The SAML identity provider of the end-to-end tests: e2e/samlidp (crewjam/saml's IdentityProvider,
// a SAML implementation this team did not write), built with the Go toolchain into a temporary
// directory, started on loopback and stopped by pid.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { ROOT } from './harness.mjs';

const execFileP = promisify(execFile);

/**
 * Builds and starts the IdP. Resolves to {base, entity_id, sso_url, certificate, metadata_url,
 * setAudience(value), stop()}; call stop() in after().
 */
export async function startSamlIdp() {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'latchkey-samlidp-'));
  const bin = path.join(tmp, 'samlidp');
  const env = { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', PATH: `${process.env.PATH}:/usr/local/go/bin` };
  try {
    await execFileP('go', ['build', '-o', bin, './e2e/samlidp'], { cwd: ROOT, env, timeout: 180_000 });
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw new Error(`go build ./e2e/samlidp: ${e.message}\n${e.stderr}`);
  }
  const child = spawn(bin, ['-addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  // Backstop: never leave the IdP behind if this process dies without after().
  const onExit = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', onExit);

  const stop = async () => {
    process.removeListener('exit', onExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(tmp, { recursive: true, force: true });
  };

  let timer;
  try {
    const first = await Promise.race([
      new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve)),
      exited.then((code) => Promise.reject(new Error(`samlidp exited (${code}): ${stderr}`))),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`samlidp not ready: ${stderr}`)), 20_000))),
    ]);
    const ready = JSON.parse(first);
    return {
      ...ready,
      metadata_url: ready.entity_id,
      /** Makes the IdP believe another entity id for the service provider (a wrong audience), or '' for the real one. */
      async setAudience(audience) {
        const res = await fetch(`${ready.base}/control`, { method: 'POST', body: JSON.stringify({ audience }) });
        if (res.status !== 204) throw new Error(`samlidp /control: ${res.status}`);
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

const FIELD = /name="(SAMLResponse|RelayState)" value="([^"]*)"/g;
const unescape = (s) =>
  s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCharCode(parseInt(n, 16)))
    .replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * Walks a SAML login without a browser: from the IdP address Latchkey's start redirected to, signs
 * in as `email` and returns {acs, form}: the response form the IdP would post to the ACS.
 */
export async function samlResponseFor(idpURL, { email, nameId = '' }) {
  const u = new URL(idpURL);
  u.searchParams.set('email', email);
  if (nameId) u.searchParams.set('name_id', nameId);
  const res = await fetch(u, { signal: AbortSignal.timeout(10_000) });
  const html = await res.text();
  if (res.status !== 200) throw new Error(`samlidp: ${res.status} ${html}`);
  const form = new URLSearchParams();
  for (const m of html.matchAll(FIELD)) form.set(m[1], unescape(m[2]));
  const action = /action="([^"]*)"/.exec(html);
  if (!action || !form.get('SAMLResponse')) throw new Error(`samlidp: no response form: ${html}`);
  return { acs: unescape(action[1]), form };
}
