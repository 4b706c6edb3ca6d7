// A realm built straight into a data directory, through its actor, for benchmarks that need a
// history: users, channels (each user in `perUser` consecutive channels, the first user, the
// owner, in all), and messages sent by the owner round-robin over the channels and ten topics,
// half of them unread by the owner (or the newest few, `ownerUnread`). Long builds report their
// progress. Also the one-channel realm of the fan-out and send benchmarks, and the one-channel
// realms, spread over shards, of the realms benchmark.
import { openShards, openStore } from '../../src/setup.js';
import { loadConfig } from '../../src/config.js';
import { EventQueues } from '../../src/events/queues.js';
import type { RealmActor } from '../../src/realm/actor.js';
import { Realms } from '../../src/realm/registry.js';
import { RealmShards } from '../../src/realm/shards.js';
import { Role } from '../../src/users/records.js';

export interface DatasetShape {
  users: number;
  channels: number;
  /** How many channels each user other than the owner is in. */
  perUser: number;
  messages: number;
  /** The owner has read every message but the newest this many; without it, every second one. */
  ownerUnread?: number;
}

export interface Dataset {
  realm: RealmActor;
  ownerId: number;
  ownerEmail: string;
  apiKey: string;
  messageIds: number[];
  channelNames: string[];
}

const BATCH = 2000;
/** How often (in messages) a long build says how far it is. */
const PROGRESS_EVERY = 50_000;

/** A user of the realm (no password): what users.create answers, the API key included. */
export const addUser = (realm: RealmActor, email: string, role: Role) => realm.ask('users.create', null, { email, fullName: email.split('@')[0]!, role, passwordHash: null });

/** A public channel made by `by` with these subscribers, announced nowhere. */
export async function addChannel(realm: RealmActor, by: number, name: string, principals: number[]): Promise<void> {
  await realm.ask('subscriptions.add', by, {
    subscriptions: [{ name }],
    principals,
    authorizationErrorsFatal: true,
    isDefaultStream: false,
    announce: false,
    newChannel: { inviteOnly: false, isWebPublic: false, historyPublicToSubscribers: null, messageRetentionDays: null, topicsPolicy: 'inherit', permissions: {} },
  });
}

export async function buildDataset(realms: Realms, shape: DatasetShape, name: string): Promise<Dataset> {
  const realm = await realms.create({ subdomain: '', name });
  const ownerEmail = 'bench@bench.test';
  const owner = await addUser(realm, ownerEmail, Role.owner);
  const others = await Promise.all(Array.from({ length: shape.users - 1 }, (_, i) => addUser(realm, `user${i}@bench.test`, Role.member)));
  const channelNames = Array.from({ length: shape.channels }, (_, i) => `channel ${i}`);
  for (const [c, channel] of channelNames.entries()) {
    // User u is in channels u, u + 1, … u + perUser - 1 (round the end): channel c's distance from u,
    // kept non-negative whatever the number of users (JavaScript's % keeps a negative's sign).
    const members = others.filter((_, u) => (((c - u) % shape.channels) + shape.channels) % shape.channels < shape.perUser).map((user) => user.userId);
    await addChannel(realm, owner.userId, channel, [owner.userId, ...members]);
  }
  const messageIds: number[] = [];
  const started = performance.now();
  for (let start = 0; start < shape.messages; start += BATCH) {
    const sent = await Promise.all(
      Array.from({ length: Math.min(BATCH, shape.messages - start) }, (_, k) => {
        const i = start + k;
        return realm.ask('messages.send', owner.userId, {
          type: 'stream',
          to: [channelNames[i % shape.channels]!],
          topic: `topic ${i % 10}`,
          content: `message ${i}`,
          readBySender: shape.ownerUnread === undefined ? i % 2 === 0 : i < shape.messages - shape.ownerUnread,
          client: 'bench',
        });
      }),
    );
    messageIds.push(...sent.map((message) => message.id));
    if (messageIds.length % PROGRESS_EVERY < BATCH && shape.messages >= PROGRESS_EVERY) {
      const seconds = (performance.now() - started) / 1000;
      console.log(`  built ${messageIds.length.toLocaleString('en')} of ${shape.messages.toLocaleString('en')} messages (${seconds.toFixed(0)} s)`);
    }
  }
  return { realm, ownerId: owner.userId, ownerEmail, apiKey: owner.apiKey, messageIds, channelNames };
}

/** A member's credentials, for a client of the server. */
export interface Member {
  email: string;
  apiKey: string;
}

/** Builds a realm straight into a data directory: an owner and `count` members, all subscribed to
 * one public channel named `channel`. */
export async function buildChannelRealm(dataDir: string, count: number, channel: string): Promise<{ owner: Member; members: Member[] }> {
  const config = { ...loadConfig({}), dataDir, mode: 'production' as const };
  const store = openStore(config);
  const realms = new Realms(store, config, new EventQueues(store));
  const built = await populate(await realms.create({ subdomain: '', name: channel }), channel, count, channel);
  await realms.idle();
  await store.close();
  return built;
}

/** An owner and `count` members (e-mail addresses at `domain`.test) in one channel. */
async function populate(realm: RealmActor, domain: string, count: number, channel: string): Promise<{ owner: Member; members: Member[] }> {
  const owner = await addUser(realm, `owner@${domain}.test`, Role.owner);
  const members = await Promise.all(Array.from({ length: count }, (_, i) => addUser(realm, `member${i}@${domain}.test`, Role.member)));
  await addChannel(realm, owner.userId, channel, [owner.userId, ...members.map((member) => member.userId)]);
  return {
    owner: { email: `owner@${domain}.test`, apiKey: owner.apiKey },
    members: members.map((member, i) => ({ email: `member${i}@${domain}.test`, apiKey: member.apiKey })),
  };
}

/** Builds `count` one-channel realms (subdomains r0, r1, …; `members` members each besides the
 * owner, all in a channel named `channel`) into a data directory of `shards` shards, placed as the
 * management CLI places them (the emptiest shard first). */
export async function buildChannelRealms(dataDir: string, shards: number, count: number, members: number, channel: string): Promise<{ subdomain: string; owner: Member; members: Member[] }[]> {
  const config = { ...loadConfig({}), dataDir, mode: 'production' as const, realmThreads: shards };
  const stores = openShards(config, { placing: true });
  const queues = new EventQueues(stores[0]!);
  const realms = new RealmShards(
    stores.map((store) => new Realms(store, config, queues)),
    shards,
  );
  const built = [];
  for (let index = 0; index < count; index++) {
    const subdomain = `r${index}`;
    built.push({ subdomain, ...(await populate(await realms.create({ subdomain, name: subdomain }), subdomain, members, channel)) });
  }
  await realms.idle();
  await Promise.all(stores.map((store) => store.close()));
  return built;
}
