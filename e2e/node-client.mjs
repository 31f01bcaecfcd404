// The pinned stytch Node client as the compatibility tests use it: pointed at our server, and
// checked against the response types it declares.
import assert from 'node:assert/strict';
import stytch from 'stytch';
import { shapeErrors } from './sdk-types.mjs';

/** A fresh B2BClient (own JWKS cache) for a project, pointed at env (our server, not Stytch's hosts). */
export function nodeClient({ project_id, secret, env }) {
  // The client warns once per construction that env is not one of its own hosts; that is the point.
  const warn = console.warn;
  console.warn = (...a) => String(a[0]).includes("custom 'env'") || warn(...a);
  try {
    return new stytch.B2BClient({ project_id, secret, env });
  } finally {
    console.warn = warn;
  }
}

/** Fails unless value has the shape stytch@14.2.0 declares for typeName (known: errors to tolerate). */
export function assertShape(value, typeName, known = []) {
  const errs = shapeErrors(value, typeName).filter((e) => !known.some((re) => re.test(e)));
  assert.deepEqual(errs, [], `${typeName} as declared by stytch@14.2.0`);
}
