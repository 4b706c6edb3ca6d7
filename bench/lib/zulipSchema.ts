// Zulip's message tables in PostgreSQL, for the benchmarks that compare Parley with Zulip's data
// model (search, flags): zerver_message, zerver_usermessage, zerver_recipient and
// zerver_subscription with the columns and indexes Zulip's models give them (zulip/zulip:
// zerver/models/messages.py, zerver/models/recipients.py, zerver/models/streams.py, and the
// indexes Django adds for foreign keys and db_index fields; checked against a pg_dump of a Zulip
// database migrated to zerver 0800). Tables are created without their indexes, filled, and then
// indexed: building an index once is faster than keeping it up to date row by row.
import type pg from 'pg';

/** Zulip's recipient type of a channel (Recipient.STREAM). */
export const CHANNEL_RECIPIENT = 2;

/** Creates the four tables, empty and without indexes. Columns a benchmark does not fill take
 * Zulip's defaults (a normal message of client 1, no attachment, image or link). */
export async function createZulipTables(db: pg.Client): Promise<void> {
  await db.query(`CREATE TABLE zerver_message (id integer NOT NULL, type smallint NOT NULL DEFAULT 1, subject varchar(60) NOT NULL, content text NOT NULL,
    rendered_content text, rendered_content_version integer, date_sent timestamptz NOT NULL, last_edit_time timestamptz, edit_history text,
    has_attachment boolean NOT NULL DEFAULT false, has_image boolean NOT NULL DEFAULT false, has_link boolean NOT NULL DEFAULT false, search_tsvector tsvector,
    sender_id integer NOT NULL, sending_client_id integer NOT NULL DEFAULT 1, realm_id integer NOT NULL, recipient_id integer NOT NULL,
    is_channel_message boolean NOT NULL DEFAULT true)`);
  await db.query('CREATE TABLE zerver_usermessage (id bigserial NOT NULL, flags bigint NOT NULL DEFAULT 0, message_id integer NOT NULL, user_profile_id integer NOT NULL)');
  await db.query('CREATE TABLE zerver_recipient (id integer NOT NULL, type_id integer NOT NULL, type smallint NOT NULL)');
  await db.query(`CREATE TABLE zerver_subscription (id bigserial NOT NULL, active boolean NOT NULL, is_user_active boolean NOT NULL, is_muted boolean NOT NULL,
    color varchar(10) NOT NULL DEFAULT '#c2c2c2', pin_to_top boolean NOT NULL DEFAULT false, desktop_notifications boolean, audible_notifications boolean,
    push_notifications boolean, email_notifications boolean, wildcard_mentions_notify boolean, recipient_id integer NOT NULL, user_profile_id integer NOT NULL)`);
}

/** Zulip's indexes on zerver_message. */
export const MESSAGE_INDEXES = {
  pkey: 'ALTER TABLE zerver_message ADD CONSTRAINT zerver_message_pkey PRIMARY KEY (id)',
  searchTsvector: 'CREATE INDEX zerver_message_search_tsvector ON zerver_message USING gin (search_tsvector) WITH (fastupdate = off)',
  realmRecipientId: 'CREATE INDEX zerver_message_realm_recipient_id ON zerver_message (realm_id, recipient_id, id)',
  realmRecipientDateSent: 'CREATE INDEX zerver_message_realm_recipient_date_sent ON zerver_message (realm_id, recipient_id, date_sent)',
  realmSenderRecipient: 'CREATE INDEX zerver_message_realm_sender_recipient ON zerver_message (realm_id, sender_id, recipient_id)',
  realmDateSent: 'CREATE INDEX zerver_message_realm_date_sent ON zerver_message (realm_id, date_sent)',
  realmUpperSubject: 'CREATE INDEX zerver_message_realm_upper_subject ON zerver_message (realm_id, upper(subject), id DESC NULLS LAST) WHERE is_channel_message',
  realmRecipientUpperSubject:
    'CREATE INDEX zerver_message_realm_recipient_upper_subject ON zerver_message (realm_id, recipient_id, upper(subject), id DESC NULLS LAST) WHERE is_channel_message',
  realmRecipientSubject: 'CREATE INDEX zerver_message_realm_recipient_subject ON zerver_message (realm_id, recipient_id, subject, id DESC NULLS LAST) WHERE is_channel_message',
  realmId: 'CREATE INDEX zerver_message_realm_id ON zerver_message (realm_id, id DESC NULLS LAST)',
  editHistoryId: 'CREATE INDEX zerver_message_edit_history_id ON zerver_message (id) WHERE edit_history IS NOT NULL',
  // Django's indexes for the foreign keys and the db_index fields.
  realm: 'CREATE INDEX zerver_message_realm_id_849a39c8 ON zerver_message (realm_id)',
  recipient: 'CREATE INDEX zerver_message_recipient_id_5a7b6f03 ON zerver_message (recipient_id)',
  sender: 'CREATE INDEX zerver_message_sender_id_77b89151 ON zerver_message (sender_id)',
  sendingClient: 'CREATE INDEX zerver_message_sending_client_id_1c38413f ON zerver_message (sending_client_id)',
  subject: 'CREATE INDEX zerver_message_subject_cbe8c4b9 ON zerver_message (subject)',
  subjectLike: 'CREATE INDEX zerver_message_subject_cbe8c4b9_like ON zerver_message (subject varchar_pattern_ops)',
  dateSent: 'CREATE INDEX zerver_message_date_sent_3b5b05d8 ON zerver_message (date_sent)',
  hasAttachment: 'CREATE INDEX zerver_message_has_attachment_a3fd5bf6 ON zerver_message (has_attachment)',
  hasImage: 'CREATE INDEX zerver_message_has_image_ff9a0b90 ON zerver_message (has_image)',
  hasLink: 'CREATE INDEX zerver_message_has_link_4171c207 ON zerver_message (has_link)',
  isChannelMessage: 'CREATE INDEX zerver_message_is_channel_message_ca4058ca ON zerver_message (is_channel_message)',
} as const;

/** An index of zerver_usermessage on (user_profile_id, message_id) over the rows with a flag set
 * (`present`) or clear, as Zulip's flags__andnz and flags__andz conditions write them. */
const flagIndex = (name: string, mask: number, present = true) =>
  `CREATE INDEX ${name} ON zerver_usermessage (user_profile_id, message_id) WHERE (flags & ${mask}) ${present ? '<>' : '='} 0`;

/** Zulip's indexes on zerver_usermessage: the primary key, the unique pair, the message's foreign
 * key, and the partial indexes on flag bits (read 1, starred 2, mentioned 8, the wildcard and group
 * mentions 16-64, has_alert_word 512, is_private 2048, active_mobile_push_notification 4096). */
export const USERMESSAGE_INDEXES = {
  pkey: 'ALTER TABLE zerver_usermessage ADD CONSTRAINT zerver_usermessage_pkey PRIMARY KEY (id)',
  unique: 'ALTER TABLE zerver_usermessage ADD CONSTRAINT zerver_usermessage_user_profile_id_message_id_4936d0df_uniq UNIQUE (user_profile_id, message_id)',
  message: 'CREATE INDEX zerver_usermessage_message_id_f6e63a33 ON zerver_usermessage (message_id)',
  starred: flagIndex('zerver_usermessage_starred_message_id', 2),
  mentioned: flagIndex('zerver_usermessage_mentioned_message_id', 8),
  unread: flagIndex('zerver_usermessage_unread_message_id', 1, false),
  hasAlertWord: flagIndex('zerver_usermessage_has_alert_word_message_id', 512),
  wildcardMentioned: 'CREATE INDEX zerver_usermessage_wildcard_mentioned_message_id ON zerver_usermessage (user_profile_id, message_id) WHERE (flags & 8) <> 0 OR (flags & 16) <> 0',
  anyMentioned: flagIndex('zerver_usermessage_any_mentioned_message_id', 8 | 16 | 32 | 64),
  isPrivate: flagIndex('zerver_usermessage_is_private_message_id', 2048),
  isPrivateUnread: 'CREATE INDEX zerver_usermessage_is_private_unread_message_id ON zerver_usermessage (user_profile_id, message_id) WHERE (flags & 2048) <> 0 AND (flags & 1) = 0',
  activeMobilePush: flagIndex('zerver_usermessage_active_mobile_push_notification_id', 4096),
  messageActiveMobilePush: 'CREATE INDEX zerver_usermessage_message_active_mobile_push_notification_idx ON zerver_usermessage (message_id) WHERE (flags & 4096) <> 0',
} as const;

/** Zulip's indexes on zerver_recipient and zerver_subscription. */
export const CHANNEL_INDEXES = [
  'ALTER TABLE zerver_recipient ADD CONSTRAINT zerver_recipient_pkey PRIMARY KEY (id)',
  'ALTER TABLE zerver_recipient ADD CONSTRAINT zerver_recipient_type_type_id_29712363_uniq UNIQUE (type, type_id)',
  'CREATE INDEX zerver_recipient_type_139dd891 ON zerver_recipient (type)',
  'CREATE INDEX zerver_recipient_type_id_dbad0d89 ON zerver_recipient (type_id)',
  'ALTER TABLE zerver_subscription ADD CONSTRAINT zerver_subscription_pkey PRIMARY KEY (id)',
  'ALTER TABLE zerver_subscription ADD CONSTRAINT zerver_subscription_user_profile_id_recipient_id_6051164b_uniq UNIQUE (user_profile_id, recipient_id)',
  'CREATE INDEX zerver_subscription_recipient_id_1e90e2cc ON zerver_subscription (recipient_id)',
  'CREATE INDEX zerver_subscription_user_profile_id_1773aa42 ON zerver_subscription (user_profile_id)',
  'CREATE INDEX zerver_subscription_recipient_id_user_profile_id_idx ON zerver_subscription (recipient_id, user_profile_id) WHERE active AND is_user_active',
] as const;

/** Runs index statements one after the other. */
export async function createIndexes(db: pg.Client, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await db.query(statement);
}

/** Adds rows to zerver_usermessage in one statement (flags 0 when not given). */
export async function insertUserMessages(db: pg.Client, userIds: readonly number[], messageIds: readonly number[], flags?: readonly number[]): Promise<void> {
  await db.query('INSERT INTO zerver_usermessage (user_profile_id, message_id, flags) SELECT * FROM unnest($1::int[], $2::int[], $3::bigint[])', [
    userIds,
    messageIds,
    flags ?? userIds.map(() => 0),
  ]);
}
