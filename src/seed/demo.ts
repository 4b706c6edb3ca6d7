// The demo realm a development server creates on an empty data directory: Zulip's development
// users, so that Zulip's documentation examples and clients work against it as they are.
import type { Realms } from '../realm/registry.js';
import { Role } from '../users/records.js';

export const demoUsers = [
  { email: 'desdemona@zulip.com', fullName: 'Desdemona', role: Role.owner },
  { email: 'iago@zulip.com', fullName: 'Iago', role: Role.administrator },
  { email: 'hamlet@zulip.com', fullName: 'King Hamlet', role: Role.member },
  { email: 'othello@zulip.com', fullName: 'Othello, the Moor of Venice', role: Role.member },
  { email: 'cordelia@zulip.com', fullName: "Cordelia, Lear's daughter", role: Role.member },
  { email: 'prospero@zulip.com', fullName: 'Prospero from The Tempest', role: Role.member },
  { email: 'polonius@zulip.com', fullName: 'Polonius', role: Role.guest },
] as const;

export async function seedDemoRealm(realms: Realms): Promise<void> {
  const realm = await realms.create({
    subdomain: '',
    name: 'Zulip Dev',
    description: 'The Parley development environment default organization.',
  });
  for (const user of demoUsers) {
    await realm.ask('users.create', null, { ...user, passwordHash: null, timezone: 'UTC' });
  }
}
