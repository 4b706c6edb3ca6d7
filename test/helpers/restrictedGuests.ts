// Guests restricted to the people they share a channel or a direct message with (the realm's
// can_access_all_users_group set to members), and a writer a guest in Verona may not see.
import * as assert from 'uvu/assert';
import type { ApiClient } from './client.js';
import type { TestServer } from './server.js';

/** Runs `run` while guests are restricted, with a new member who has left Verona (public: they may
 * still write there), so the guests of Verona cannot see them; then opens access again. */
export async function withUnseenWriter(server: TestServer, name: { email: string; fullName: string }, run: (writer: ApiClient, writerId: number) => Promise<void>): Promise<void> {
  const iago = await server.as('iago@zulip.com');
  const groups = (await iago.get('/user_groups')).body.user_groups as { id: number; name: string }[];
  const group = (groupName: string) => groups.find((candidate) => candidate.name === groupName)!.id;
  assert.is((await iago.patch('/realm', { can_access_all_users_group: { new: group('role:members') } })).status, 200);
  try {
    const created = await iago.post('/users', { email: name.email, full_name: name.fullName, password: 'long enough' });
    assert.is(created.status, 200, JSON.stringify(created.body));
    const writer = await server.as(name.email);
    assert.is((await writer.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['Verona']) })).status, 200);
    await run(writer, Number(created.body.user_id));
  } finally {
    assert.is((await iago.patch('/realm', { can_access_all_users_group: { new: group('role:everyone') } })).status, 200);
  }
}
