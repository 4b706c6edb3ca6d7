// The demo realm a development server creates on an empty data directory: Zulip's development
// users, channels and a few messages, so that Zulip's documentation examples and clients work
// against it as they are.
import type { RealmHandle } from '../realm/handle.js';
import type { RealmCreator } from '../realm/registry.js';
import { hashPassword } from '../users/password.js';
import { Role } from '../users/records.js';

/** Every demo user's password (docs/getting-started.md): clients without a development login, such as Zulip's
 * mobile app, sign in with it. Public by design: a development server only. */
export const DEMO_PASSWORD = 'parley-demo';

/** One hash for all demo users, computed once per process and cost (scrypt is slow by design). */
const demoPasswordHashes = new Map<number, Promise<string>>();

export const demoUsers = [
  { email: 'desdemona@zulip.com', fullName: 'Desdemona', role: Role.owner },
  { email: 'iago@zulip.com', fullName: 'Iago', role: Role.administrator },
  { email: 'hamlet@zulip.com', fullName: 'King Hamlet', role: Role.member },
  { email: 'othello@zulip.com', fullName: 'Othello, the Moor of Venice', role: Role.member },
  { email: 'cordelia@zulip.com', fullName: "Cordelia, Lear's daughter", role: Role.member },
  { email: 'prospero@zulip.com', fullName: 'Prospero from The Tempest', role: Role.member },
  { email: 'polonius@zulip.com', fullName: 'Polonius', role: Role.guest },
] as const;

type DemoEmail = (typeof demoUsers)[number]['email'];

const demoChannels: { name: string; description: string; inviteOnly: boolean; subscribers: DemoEmail[] }[] = [
  { name: 'Verona', description: 'A city in **Italy**', inviteOnly: false, subscribers: ['iago@zulip.com', 'hamlet@zulip.com', 'othello@zulip.com', 'cordelia@zulip.com', 'prospero@zulip.com', 'polonius@zulip.com'] },
  { name: 'Denmark', description: 'A Scandinavian country', inviteOnly: false, subscribers: ['iago@zulip.com', 'hamlet@zulip.com', 'cordelia@zulip.com', 'desdemona@zulip.com'] },
  { name: 'Scotland', description: 'Located in the United Kingdom', inviteOnly: false, subscribers: ['iago@zulip.com', 'othello@zulip.com', 'prospero@zulip.com'] },
  { name: 'Venice', description: 'A northeastern Italian city', inviteOnly: false, subscribers: ['iago@zulip.com', 'desdemona@zulip.com', 'othello@zulip.com'] },
  { name: 'Rome', description: 'Yet another Italian city', inviteOnly: false, subscribers: ['iago@zulip.com', 'desdemona@zulip.com', 'hamlet@zulip.com', 'prospero@zulip.com'] },
  { name: 'core team', description: 'A private channel for the core team', inviteOnly: true, subscribers: ['iago@zulip.com', 'desdemona@zulip.com'] },
];

const demoMessages: { from: DemoEmail; channel: string; topic: string; content: string }[] = [
  { from: 'hamlet@zulip.com', channel: 'Verona', topic: 'greetings', content: 'Hello, Verona!' },
  { from: 'othello@zulip.com', channel: 'Verona', topic: 'greetings', content: 'Welcome, @**King Hamlet**.' },
  { from: 'cordelia@zulip.com', channel: 'Denmark', topic: 'castle', content: 'Something is rotten in the state of Denmark.' },
  { from: 'iago@zulip.com', channel: 'core team', topic: 'plans', content: 'Private plans go here.' },
];

export async function seedDemoRealm(realms: RealmCreator, passwordHashCost: number): Promise<void> {
  const realm = await realms.create({
    subdomain: '',
    name: 'Zulip Dev',
    description: 'The Parley development environment default organization.',
  });
  const ids = new Map<string, number>();
  if (!demoPasswordHashes.has(passwordHashCost)) demoPasswordHashes.set(passwordHashCost, hashPassword(DEMO_PASSWORD, passwordHashCost));
  const passwordHash = await demoPasswordHashes.get(passwordHashCost)!;
  for (const user of demoUsers) {
    ids.set(user.email, (await realm.ask('users.create', null, { ...user, passwordHash, timezone: 'UTC' })).userId);
  }
  const as = (email: DemoEmail): number => ids.get(email)!;
  for (const channel of demoChannels) await createChannel(realm, as('iago@zulip.com'), channel);
  // New channels are announced in Verona, as on Zulip's development server.
  const verona = await realm.ask('channels.idByName', as('iago@zulip.com'), { name: 'Verona' });
  await realm.ask('realm.setAnnouncementsChannel', null, { channelId: verona });
  // As Zulip's development organization: read receipts on, and its test data's user group.
  await realm.ask('realm.update', as('desdemona@zulip.com'), { enable_read_receipts: true });
  await realm.ask('groups.create', as('iago@zulip.com'), { name: 'hamletcharacters', description: 'Characters of Hamlet', members: [as('hamlet@zulip.com'), as('cordelia@zulip.com')], subgroups: [], permissions: {} });
  for (const message of demoMessages) {
    await realm.ask('messages.send', as(message.from), {
      type: 'stream',
      to: [message.channel],
      topic: message.topic,
      content: message.content,
      readBySender: true,
      client: 'populate_db',
    });
  }
}

function createChannel(realm: RealmHandle, creatorId: number, channel: (typeof demoChannels)[number]) {
  return realm.ask('subscriptions.add', creatorId, {
    subscriptions: [{ name: channel.name, description: channel.description }],
    principals: channel.subscribers,
    authorizationErrorsFatal: true,
    isDefaultStream: !channel.inviteOnly,
    announce: false,
    newChannel: {
      inviteOnly: channel.inviteOnly,
      isWebPublic: false,
      historyPublicToSubscribers: null,
      messageRetentionDays: null,
      topicsPolicy: 'inherit',
      permissions: {},
    },
  });
}
