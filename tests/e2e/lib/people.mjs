// Several people on one Worker: each signs in with a token the test signs (node:crypto keys, no network),
// and the Worker talks to the scripted Hermes double. The set-up the workspace suites share.

import { after, before } from 'node:test';

import { startHermesDouble } from '../../hermes/double.mjs';
import { claims, jwkSet, jwtVars, sign } from './identity.mjs';
import { TOOL_VARS, fetchJson, sendJson } from './mnote.mjs';
import { startWorker } from './wrangler.mjs';

/** `Authorization` values by name, from `{name: [sub, {workspace: role}]}`, signed with `keys.es`. */
export function bearers(keys, people) {
  return Object.fromEntries(
    Object.entries(people).map(([name, [sub, workspaces]]) => [name, `Bearer ${sign(keys.es, claims({ sub, workspaces }))}`]),
  );
}

/** A Worker that trusts `keys` and relays to a fresh Hermes double keyed `hermesKey`; `stop()` ends both. */
export async function startPeopleWorker({ keys, hermesKey }) {
  const hermes = await startHermesDouble({ apiKey: hermesKey });
  const vars = { ...jwtVars(jwkSet(keys)), ...TOOL_VARS, MNOTE_SIGN_IN_FREE_FAILURES: '10000', HERMES_UPSTREAM_URL: hermes.url, HERMES_API_KEY: hermesKey };
  const worker = await startWorker({ vars });
  return { worker, hermes, url: worker.url, stop: async () => Promise.all([worker.stop(), hermes.close()]) };
}

/**
 * `as(user, method, path, body)`: a request to `url` by `users[user]` (`single`: the client token of
 * single-user mode, which the test helpers send by default), with a JSON body when one is given.
 */
export function requester(url, users) {
  return (user, method, path, body) => {
    const headers = user === 'single' ? { origin: url } : { authorization: users[user], origin: url };
    if (body === undefined) return fetchJson(`${url}${path}`, { method, headers });
    return sendJson(`${url}${path}`, method, body, headers);
  };
}

/**
 * The suite's hooks: before it, a Worker for `users` (see `startPeopleWorker`) whose `{url, hermes, as}`
 * `onReady` receives; after it, both stopped.
 */
export function peopleSuite({ keys, hermesKey, users }, onReady) {
  let people;
  before(
    async () => {
      people = await startPeopleWorker({ keys, hermesKey });
      onReady({ url: people.url, hermes: people.hermes, as: requester(people.url, users) });
    },
    { timeout: 600_000 },
  );
  after(async () => {
    await people?.stop();
  });
}
