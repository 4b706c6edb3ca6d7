// The flags benchmark's "Zulip model": Zulip's own data model for message flags, in PostgreSQL,
// loaded with the realm the benchmark built and asked what Zulip's server asks of it for
// `POST /messages/flags/narrow` and `POST /messages/flags`. Followed from zulip/zulip:
//   zerver/views/message_flags.py   update_message_flags_for_narrow: fetch_messages for the window,
//                                   then do_update_message_flags on its message IDs
//   zerver/lib/narrow.py            fetch_messages, ok_to_include_history, get_base_query_for_search,
//                                   NarrowBuilder (by_channel, by_topic, by_is), limit_query_to_range,
//                                   post_process_limited_query
//   zerver/lib/topic_sqlalchemy.py  topic_match_sa: upper(subject) = upper(topic) AND is_channel_message
//   zerver/actions/message_flags.py do_update_message_flags
//   zerver/lib/stream_subscription.py get_subscribed_stream_recipient_ids_for_user
//   zerver/lib/user_message.py      DEFAULT_HISTORICAL_FLAGS (historical | read)
//   zerver/models/messages.py       the tables, flag bits and indexes (lib/zulipSchema.ts)
//
// The data: every message of the realm (zerver_message) and every user's rows with their flags
// (zerver_usermessage, 10 million for the full dataset), exported from the Parley store, the rows
// inserted message by message as Zulip's send path creates them (so a user's rows lie spread over
// the table as in Zulip's), the channels' recipients and the subscriptions; then Zulip's indexes,
// VACUUM ANALYZE and a checkpoint. PostgreSQL is configured as Zulip configures it (zulipSettings),
// its durability at the defaults (fsync and synchronous_commit on).
//
// A request is one transaction, its statements sent over one kept-alive connection: the window's
// query (the SQL SQLAlchemy builds, with the window's message IDs and flags), then
// do_update_message_flags' statements: for marking unread, the IDs in channels the user is not
// subscribed to; the user's rows locked (SELECT … FOR UPDATE, in message order); the rows already
// as wanted left out, in the client, as Zulip does; where a flag's default for messages without a
// row differs from the target (marking unread, starring), bulk_access_messages' look-up of the
// user's subscriptions; and the UPDATE of the rows that change. Zulip's `IN (…)` lists are sent as
// `= ANY($n)` (PostgreSQL plans the two alike). Left out, all of it work Zulip does besides, so
// that the model can only be faster than Zulip: the request's authentication and the channel's
// look-up (memcached in Zulip), and what follows the commit (the event to Tornado, the unread
// message_details, the mobile notifications' clearing, the analytics counts).
import { totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { RawTerm } from '../../src/messages/narrow.js';
import { Flag, type FlagName } from '../../src/messages/records.js';
import type { Store } from '../../src/store/store.js';
import { startPostgres } from './postgres.js';
import { CHANNEL_INDEXES, CHANNEL_RECIPIENT, createIndexes, createZulipTables, insertUserMessages, MESSAGE_INDEXES, USERMESSAGE_INDEXES } from './zulipSchema.js';

/** PostgreSQL tuned as Zulip's installer tunes it for the machine's memory
 * (puppet/zulip/manifests/profile/postgresql.pp, templates/postgresql/zulip.conf.template.erb),
 * with shared buffers of at least 2 GB so that they hold the tables and their indexes (1.3 GB for
 * the full dataset), and random_page_cost 1.1, the value PostgreSQL's documentation suggests for
 * solid-state disks and data held in memory (zulip.conf's [postgresql] random_page_cost): at the
 * default 4 the planner reads the user's rows through zerver_usermessage_message_id and its
 * window and lock queries take two to ten times as long. Durability at PostgreSQL's defaults
 * (fsync, synchronous_commit and full_page_writes on), as Zulip leaves it. */
function zulipSettings(): Record<string, string> {
  const mb = totalmem() / 2 ** 20;
  const size = (value: number) => `${Math.floor(value)}MB`;
  return {
    shared_buffers: size(Math.max(mb / 8, 2048)),
    effective_cache_size: size((mb * 10) / 32),
    work_mem: size(mb / 512),
    maintenance_work_mem: size(mb / 32),
    wal_buffers: '4MB',
    checkpoint_completion_target: '0.7',
    random_page_cost: '1.1',
  };
}

/** What update_message_flags_for_narrow is given. */
export interface NarrowFlagsRequest {
  anchor: number;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  narrow: RawTerm[];
  op: 'add' | 'remove';
  flag: FlagName;
}

export interface ZulipFlagsModel {
  version: string;
  settings: Record<string, string>;
  loadSeconds: number;
  userMessages: number;
  /** POST /messages/flags/narrow: the number of messages whose flag changed. */
  updateForNarrow(userId: number, request: NarrowFlagsRequest): Promise<number>;
  /** POST /messages/flags: the number of messages whose flag changed. */
  updateFlags(userId: number, messages: readonly number[], op: 'add' | 'remove', flag: FlagName): Promise<number>;
  stop(): Promise<void>;
}

/** Rows a statement inserts into zerver_message or zerver_usermessage. */
const MESSAGE_BATCH = 10_000;
const ROW_BATCH = 100_000;
/** How often (in rows) the load says how far it is. */
const PROGRESS_EVERY = 2_000_000;

const DEFAULT_HISTORICAL_FLAGS = Flag.historical | Flag.read;

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;

/** Zulip's tables filled with the realm's channels, subscriptions, messages and rows; answers the
 * channels' recipient IDs by name and the number of rows. */
async function load(db: pg.Client, store: Store, realmId: number): Promise<{ recipients: Map<string, number>; userMessages: number }> {
  const started = performance.now();
  await createZulipTables(db);
  const channels = [...store.channels.ofRealm(realmId)];
  await db.query('INSERT INTO zerver_recipient (id, type_id, type) SELECT id, type_id, $3 FROM unnest($1::int[], $2::int[]) AS t(id, type_id)', [
    channels.map((channel) => channel.recipientId),
    channels.map((channel) => channel.id),
    CHANNEL_RECIPIENT,
  ]);
  const recipientOf = new Map(channels.map((channel) => [channel.id, channel.recipientId]));
  const active = new Map([...store.users.ofRealm(realmId)].map((user) => [user.id, user.isActive]));
  const subscriptions = [...store.subscriptions.ofRealm(realmId)];
  await db.query(
    'INSERT INTO zerver_subscription (user_profile_id, recipient_id, active, is_user_active, is_muted) SELECT * FROM unnest($1::int[], $2::int[], $3::bool[], $4::bool[], $5::bool[])',
    [
      subscriptions.map((subscription) => subscription.userId),
      subscriptions.map((subscription) => recipientOf.get(subscription.channelId)),
      subscriptions.map((subscription) => subscription.active),
      subscriptions.map((subscription) => active.get(subscription.userId)),
      subscriptions.map((subscription) => subscription.isMuted),
    ],
  );

  // Messages in ID order, as sent.
  const messageIds: number[] = [];
  let batch: { id: number; sender: number; recipient: number; topic: string; content: string; rendered: string; sent: number }[] = [];
  const flushMessages = async () => {
    await db.query(
      `INSERT INTO zerver_message (id, sender_id, recipient_id, realm_id, subject, content, rendered_content, date_sent)
       SELECT id, sender, recipient, $8, subject, content, rendered, to_timestamp(sent)
       FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::float8[]) AS t(id, sender, recipient, subject, content, rendered, sent)`,
      [...(['id', 'sender', 'recipient', 'topic', 'content', 'rendered', 'sent'] as const).map((field) => batch.map((message) => message[field])), realmId],
    );
    batch = [];
  };
  for (const { value: message } of store.messages.getRange()) {
    if (message.realmId !== realmId) continue;
    if (message.type !== 'stream') throw new Error(`the Zulip model loads channel messages only (message ${message.id} is a direct message)`);
    messageIds.push(message.id);
    batch.push({ id: message.id, sender: message.senderId, recipient: message.recipientId, topic: message.topic, content: message.content, rendered: message.renderedContent, sent: message.timestamp });
    if (batch.length === MESSAGE_BATCH) await flushMessages();
  }
  if (batch.length > 0) await flushMessages();

  // Every user's rows, copied out of the store's tables (held in memory one user at a time).
  const users = [...active.keys()].map((userId) => {
    const rows = store.userMessages.rows(userId);
    return { userId, ids: rows.ids.slice(0, rows.length), flags: rows.first.slice(0, rows.length), next: 0 };
  });
  const total = users.reduce((sum, user) => sum + user.ids.length, 0);
  console.log(`  Zulip model: ${messageIds.length.toLocaleString('en')} messages loaded (${seconds(started)}); loading ${total.toLocaleString('en')} user-message rows`);
  // Inserted message by message, each message's rows together (Zulip's send path creates them so).
  let rows = { users: [] as number[], messages: [] as number[], flags: [] as number[] };
  let inserted = 0;
  const flushRows = async () => {
    await insertUserMessages(db, rows.users, rows.messages, rows.flags);
    if (Math.floor((inserted + rows.users.length) / PROGRESS_EVERY) > Math.floor(inserted / PROGRESS_EVERY)) {
      console.log(`  Zulip model: ${(inserted + rows.users.length).toLocaleString('en')} of ${total.toLocaleString('en')} rows (${seconds(started)})`);
    }
    inserted += rows.users.length;
    rows = { users: [], messages: [], flags: [] };
  };
  for (const messageId of messageIds) {
    for (const user of users) {
      if (user.ids[user.next] !== messageId) continue;
      rows.users.push(user.userId);
      rows.messages.push(messageId);
      rows.flags.push(user.flags[user.next++]!);
    }
    if (rows.users.length >= ROW_BATCH) await flushRows();
  }
  if (rows.users.length > 0) await flushRows();
  if (inserted !== total) throw new Error(`the Zulip model loaded ${inserted} of ${total} rows: some are of messages it did not load`);

  await createIndexes(db, [...Object.values(MESSAGE_INDEXES), ...Object.values(USERMESSAGE_INDEXES), ...CHANNEL_INDEXES]);
  console.log(`  Zulip model: indexes built (${seconds(started)})`);
  await db.query('VACUUM ANALYZE');
  await db.query('CHECKPOINT');
  return { recipients: new Map(channels.map((channel) => [channel.name, channel.recipientId])), userMessages: total };
}

/** The recipient IDs of the channels the user is subscribed to (get_subscribed_stream_recipient_ids_for_user). */
const SUBSCRIBED_RECIPIENTS = `SELECT U0.recipient_id FROM zerver_subscription U0 INNER JOIN zerver_recipient U1 ON (U0.recipient_id = U1.id)
  WHERE (U0.user_profile_id = $1 AND U1.type = ${CHANNEL_RECIPIENT} AND U0.active)`;

/** The window's query, as fetch_messages builds it for an anchor and messages after it. */
function windowQuery(realmId: number, recipients: ReadonlyMap<string, number>, userId: number, request: NarrowFlagsRequest): { text: string; values: unknown[] } {
  if (request.numBefore !== 0) throw new Error('the Zulip model fetches windows after their anchor only');
  const terms = request.narrow.map((term): [string, unknown] => {
    if (!Array.isArray(term) && term.negated) throw new Error('the Zulip model has no negated narrow terms');
    return Array.isArray(term) ? term : [term.operator, term.operand];
  });
  // A channel's public history without an `is` term: its messages, not the user's rows
  // (ok_to_include_history; every channel of the benchmark is public with shared history).
  const history = terms.some(([operator]) => operator === 'channel' || operator === 'stream') && !terms.some(([operator]) => operator === 'is');
  // $1: the realm (history) or the user.
  const values: unknown[] = [history ? realmId : userId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const conditions = terms.map(([operator, operand]) => {
    if (operator === 'channel' || operator === 'stream') {
      const recipientId = recipients.get(String(operand));
      if (recipientId === undefined) throw new Error(`unknown channel ${String(operand)}`);
      return `recipient_id = ${param(recipientId)}`;
    }
    if (operator === 'topic') return `upper(subject) = upper(${param(String(operand))}) AND is_channel_message`;
    if (operator === 'is' && operand === 'unread') return `(flags & ${Flag.read}) = 0`;
    throw new Error(`the Zulip model has no narrow term ${String(operator)}:${String(operand)}`);
  });
  const base = history
    ? 'SELECT id AS message_id FROM zerver_message WHERE realm_id = $1'
    : terms.length === 0
      ? 'SELECT message_id, flags FROM zerver_usermessage WHERE user_profile_id = $1'
      : 'SELECT message_id, flags FROM zerver_usermessage JOIN zerver_message ON zerver_usermessage.message_id = zerver_message.id WHERE user_profile_id = $1';
  const id = history ? 'zerver_message.id' : 'message_id';
  // limit_query_to_range: the anchor and num_after messages after it.
  const after = param(request.anchor + (request.includeAnchor ? 0 : 1));
  const limit = request.numAfter + (request.includeAnchor ? 1 : 0);
  const inner = `${base}${conditions.map((condition) => ` AND ${condition}`).join('')} AND ${id} >= ${after} ORDER BY ${id} ASC LIMIT ${limit}`;
  return { text: `SELECT /* get_messages */ anon_1.message_id${history ? '' : ', anon_1.flags'} FROM (${inner}) AS anon_1 ORDER BY anon_1.message_id ASC`, values };
}

export async function startZulipFlagsModel(store: Store, realmId: number): Promise<ZulipFlagsModel | string> {
  const settings = zulipSettings();
  const postgres = await startPostgres(settings);
  if (typeof postgres === 'string') return postgres;
  const db = postgres.client;
  try {
    const started = performance.now();
    console.log(`Zulip model: PostgreSQL ${postgres.version}, ${Object.entries(settings).map(([name, value]) => `${name} ${value}`).join(', ')}`);
    const { recipients, userMessages } = await load(db, store, realmId);
    const loadSeconds = (performance.now() - started) / 1000;
    const size = await db.query<{ bytes: string }>("SELECT pg_total_relation_size('zerver_usermessage') AS bytes");
    console.log(`  Zulip model: loaded in ${loadSeconds.toFixed(0)} s; zerver_usermessage with its indexes ${(Number(size.rows[0]!.bytes) / 2 ** 20).toFixed(0)} MiB`);

    /** do_update_message_flags' statements, inside the request's transaction. */
    const updateMessageFlags = async (userId: number, op: 'add' | 'remove', flag: FlagName, messages: readonly number[]): Promise<number> => {
      const bit = Flag[flag];
      const target = op === 'add' ? bit : 0;
      let ids = messages;
      // Django sends no statement for an empty `IN` list.
      if (flag === 'read' && op === 'remove' && ids.length > 0) {
        const unsubscribed = await db.query<{ id: number }>(
          `SELECT zerver_message.id FROM zerver_message INNER JOIN zerver_recipient ON (zerver_message.recipient_id = zerver_recipient.id)
           WHERE (zerver_message.id = ANY($2::int[]) AND zerver_recipient.type = ${CHANNEL_RECIPIENT} AND NOT (zerver_message.recipient_id IN (${SUBSCRIBED_RECIPIENTS})))`,
          [userId, ids],
        );
        const excluded = new Set(unsubscribed.rows.map((row) => row.id));
        ids = ids.filter((id) => !excluded.has(id));
      }
      const held = new Map<number, number>();
      if (ids.length > 0) {
        const locked = await db.query<{ message_id: number; flags: string }>(
          `SELECT zerver_usermessage.id, zerver_usermessage.user_profile_id, zerver_usermessage.message_id, zerver_usermessage.flags FROM zerver_usermessage
           WHERE (zerver_usermessage.message_id = ANY($2::int[]) AND zerver_usermessage.user_profile_id = $1) ORDER BY zerver_usermessage.message_id ASC FOR UPDATE OF zerver_usermessage`,
          [userId, ids],
        );
        for (const row of locked.rows) held.set(row.message_id, Number(row.flags));
      }
      const changed = ids.filter((id) => ((held.get(id) ?? DEFAULT_HISTORICAL_FLAGS) & bit) !== target);
      if ((DEFAULT_HISTORICAL_FLAGS & bit) !== target) {
        // Messages without a row would get historical rows, after bulk_access_messages (which
        // reads the user's subscriptions even when there are none to check).
        if (changed.some((id) => !held.has(id))) throw new Error('the Zulip model creates no historical rows');
        await db.query(SUBSCRIBED_RECIPIENTS, [userId]);
      }
      if (changed.length > 0) {
        const set = op === 'add' ? `| ${bit}` : `& ${~bit}`;
        await db.query(`UPDATE zerver_usermessage SET flags = (zerver_usermessage.flags ${set}) WHERE (zerver_usermessage.message_id = ANY($2::int[]) AND zerver_usermessage.user_profile_id = $1)`, [
          userId,
          changed,
        ]);
      }
      return changed.length;
    };

    const transaction = async (work: () => Promise<number>): Promise<number> => {
      await db.query('BEGIN');
      try {
        const count = await work();
        await db.query('COMMIT');
        return count;
      } catch (error) {
        await db.query('ROLLBACK');
        throw error;
      }
    };

    return {
      version: postgres.version,
      settings,
      loadSeconds,
      userMessages,
      updateForNarrow: (userId, request) =>
        transaction(async () => {
          const window = await db.query<{ message_id: number }>(windowQuery(realmId, recipients, userId, request));
          // post_process_limited_query: the anchor's row, and num_after rows after it.
          const ids = window.rows.map((row) => row.message_id);
          const messages = [...ids.filter((id) => id === request.anchor && request.includeAnchor), ...ids.filter((id) => id > request.anchor).slice(0, request.numAfter)];
          return updateMessageFlags(userId, request.op, request.flag, messages);
        }),
      updateFlags: (userId, messages, op, flag) => transaction(() => updateMessageFlags(userId, op, flag, messages)),
      stop: () => postgres.stop(),
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
