// The JSON kept of realms' states counts against one budget for the whole process
// (PARLEY_KEPT_JSON_MB): past it, the realm whose JSON was used longest ago gives all of it up, and
// its clients get the same answers, made again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { keptJson, KeptJsonLedger, type KeptJsonTally } from '../src/organization/keptJson.js';
import { DerivedJson } from '../src/organization/state.js';
import { Role } from '../src/users/records.js';
import type { ApiClient } from './helpers/client.js';
import { startTestServer } from './helpers/server.js';

/** A realm's state as the ledger sees it: JSON derived and kept until given up. */
function holder(ledger: KeptJsonLedger): { tally: KeptJsonTally; keep(key: number, characters: number): void } {
  const state = { version: 0 };
  const kept = { dropKeptJson: () => json.clear() };
  const tally = ledger.open(kept);
  const json = new DerivedJson<number>(state, tally);
  return { tally, keep: (key, characters) => void json.get(key, () => 'x'.repeat(characters)) };
}

test('past the budget, the realm whose JSON was used longest ago gives it all up; the one in use, only when alone', () => {
  const ledger = new KeptJsonLedger(1000);
  const [a, b, c] = [holder(ledger), holder(ledger), holder(ledger)];
  a.keep(1, 300);
  b.keep(1, 300);
  c.keep(1, 300);
  a.keep(1, 300);
  assert.is(ledger.characters, 900, 'a value served from what was kept is not counted again');
  b.keep(2, 200);
  assert.equal([a.tally.characters, b.tally.characters, c.tally.characters], [300, 500, 0], 'the one used longest ago (c: a was used since) gave its JSON up');
  assert.is(ledger.characters, 800);
  c.keep(1, 400);
  assert.equal([a.tally.characters, b.tally.characters, c.tally.characters], [0, 500, 400]);
  c.keep(2, 2000);
  assert.equal([a.tally.characters, b.tally.characters, c.tally.characters], [0, 0, 0], 'one value larger than the budget: every realm gives its JSON up, the one in use last');
  assert.is(ledger.characters, 0);
});

test("a server's kept JSON stays within PARLEY_KEPT_JSON_MB across realms, and answers made again are the same", async () => {
  const server = await startTestServer({ keptJsonMb: 1 });
  try {
    const budget = keptJson.limit;
    const elsewhere = await server.parley.realms.create({ subdomain: 'elsewhere', name: 'Elsewhere' });
    const created = await elsewhere.ask('users.create', null, { email: 'owner@elsewhere.test', fullName: 'Owner', role: Role.owner, passwordHash: null });
    const first = await server.as('hamlet@zulip.com');
    const second = server.client({ email: 'owner@elsewhere.test', apiKey: created.apiKey }, `elsewhere.${server.config.externalHost}`);
    // Each realm: 150 messages of 2,000 characters, whose views come to about 60 % of the budget.
    for (const client of [first, second]) {
      const me = Number((await client.get('/users/me')).body.user_id);
      for (let n = 0; n < 150; n++) assert.is((await client.post('/messages', { type: 'private', to: JSON.stringify([me]), content: `${n} ${'word '.repeat(400)}` })).status, 200);
    }
    const window = async (client: ApiClient) => {
      const response = await client.get('/messages', { anchor: 'newest', num_before: 200, num_after: 0 });
      assert.is(response.status, 200);
      return JSON.stringify(response.body);
    };
    const firstAnswer = await window(first);
    const oneRealm = keptJson.characters;
    assert.ok(oneRealm > budget / 2 && oneRealm <= budget, `one realm's window kept: ${oneRealm} characters of ${budget}`);
    assert.is(await window(first), firstAnswer, 'served again from what was kept');
    const secondAnswer = await window(second);
    assert.ok(keptJson.characters <= budget, `${keptJson.characters} characters kept, within ${budget}`);
    assert.ok(keptJson.characters < oneRealm * 1.5, 'the realm used longest ago gave its JSON up');
    assert.is(await window(first), firstAnswer, 'its answer, made again, is the same');
    assert.is(await window(second), secondAnswer);
    assert.ok(keptJson.characters <= budget);
  } finally {
    await server.stop();
  }
});

test.run();
