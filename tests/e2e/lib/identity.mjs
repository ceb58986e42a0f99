// Signed sign-in tokens for the tests: key pairs made with node:crypto (no network), JWK sets of their
// public halves, JWTs signed with them (or forged), and a tiny JWKS server on 127.0.0.1.
//
//   const keys = makeKeys();                       // ES256 `k_es`, RS256 `k_rs`, EdDSA `k_ed`
//   const vars = jwtVars(jwkSet(keys));             // MNOTE_JWT_* for startWorker
//   const token = sign(keys.es, claims({ sub: 'ana', workspaces: { ws_a: 'editor' } }));

import { createHmac, createSign, generateKeyPairSync, sign as edSign } from 'node:crypto';
import { createServer } from 'node:http';

export const ISSUER = 'https://id.e2e.test';
export const AUDIENCE = 'mnote-pageai-e2e';

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A key pair of one algorithm, with its kid. */
export function makeKey(alg, kid) {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'RS256'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  return { alg, kid, privateKey: pair.privateKey, publicKey: pair.publicKey };
}

/** One key per algorithm. */
export function makeKeys(suffix = '1') {
  return { es: makeKey('ES256', `k_es_${suffix}`), rs: makeKey('RS256', `k_rs_${suffix}`), ed: makeKey('EdDSA', `k_ed_${suffix}`) };
}

/** The public JWK of a key. */
export const publicJwk = (key) => ({ ...key.publicKey.export({ format: 'jwk' }), kid: key.kid, use: 'sig' });

/** A JWK set of the public halves of `keys` (an object or an array of keys). */
export const jwkSet = (keys) => ({ keys: Object.values(keys).map(publicJwk) });

/** Worker vars for a fixed key set. */
export const jwtVars = (set) => ({ MNOTE_JWT_ISSUER: ISSUER, MNOTE_JWT_AUDIENCE: AUDIENCE, MNOTE_JWT_KEYS: JSON.stringify(set) });

/** Claims for `sub` with roles by workspace, valid for 10 minutes; `extra` overrides any claim. */
export function claims({ sub, workspaces = {}, ...extra }) {
  const now = Math.floor(Date.now() / 1000);
  return { iss: ISSUER, aud: AUDIENCE, sub, iat: now, exp: now + 600, mnote: { workspaces }, ...extra };
}

/** A JWT of `payload` signed with `key`; `header` overrides header fields (to forge). */
export function sign(key, payload, header = {}) {
  const head = { alg: key.alg, typ: 'JWT', kid: key.kid, ...header };
  const input = `${b64(head)}.${b64(payload)}`;
  let signature;
  if (key.alg === 'EdDSA') signature = edSign(null, Buffer.from(input), key.privateKey);
  else {
    const signer = createSign('SHA256');
    signer.update(input);
    signature = signer.sign(key.alg === 'ES256' ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' } : key.privateKey);
  }
  return `${input}.${signature.toString('base64url')}`;
}

/** The classic key confusion: HS256 "signed" with the public key (as PEM and as its JWK text). */
export function hmacWithPublicKey(key, payload) {
  const head = { alg: 'HS256', typ: 'JWT', kid: key.kid };
  const input = `${b64(head)}.${b64(payload)}`;
  const pem = key.publicKey.export({ format: 'pem', type: 'spki' });
  return [pem, JSON.stringify(publicJwk(key))].map((secret) => `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`);
}

/** An unsigned token (`alg: none`). */
export const unsigned = (kid, payload) => `${b64({ alg: 'none', typ: 'JWT', kid })}.${b64(payload)}.`;

/**
 * A JWKS server on 127.0.0.1: `GET /{name}/jwks.json` answers `sets[name]`, counting fetches per name.
 * `set(name, jwks)` changes what it serves (a key rotation).
 */
export async function startJwksServer() {
  const sets = new Map();
  const fetches = new Map();
  const server = createServer((req, res) => {
    const name = req.url.split('/')[1];
    fetches.set(name, (fetches.get(name) ?? 0) + 1);
    const body = sets.get(name);
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'no such set' }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}/jwks.json`,
    set: (name, jwks) => sets.set(name, jwks),
    fetches: (name) => fetches.get(name) ?? 0,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}
