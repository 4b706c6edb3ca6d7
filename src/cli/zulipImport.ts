// `manage import`: a Zulip export (a directory as `manage.py export` writes it, or its .tar.gz) into
// a new realm. Everything is read and checked first — every table's shape and every reference
// between rows — so a malformed export is refused before anything is written; then the realm is
// created and filled through its actor's commands (realm.import, then realm.importMessages per
// message file), which save rows the way the rest of the server does.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extract } from 'tar';
import { ApiError } from '../errors.js';
import { checkLinkifier } from '../messages/linkifiers.js';
import { FieldType } from '../users/profileFields.js';
import type { RealmActor } from '../realm/actor.js';
import type { RealmsHere } from '../realm/registry.js';
import { messageFileName, RecipientType, type ZulipMessageFile, type ZulipRealmTables } from '../realm/zulipFormat.js';

export class ImportError extends Error {}

type Kind = 'number' | 'string' | 'boolean' | 'number?' | 'string?' | 'boolean?';
type Shape = Record<string, Kind>;

/** The fields Parley reads of each table, with their types (a real export carries more). */
const realmShapes: Record<keyof ZulipRealmTables, Shape> = {
  zerver_realm: { id: 'number', name: 'string', string_id: 'string' },
  zerver_userprofile: { id: 'number', email: 'string', delivery_email: 'string', full_name: 'string', is_active: 'boolean', is_bot: 'boolean', bot_type: 'number?', bot_owner: 'number?', role: 'number', timezone: 'string', date_joined: 'number', last_login: 'number?', email_address_visibility: 'number', avatar_version: 'number', is_mirror_dummy: 'boolean' },
  zerver_userprofile_crossrealm: { id: 'number', email: 'string', recipient_id: 'number' },
  zerver_userprofile_mirrordummy: { id: 'number', email: 'string', delivery_email: 'string', full_name: 'string', is_active: 'boolean', is_bot: 'boolean', role: 'number', timezone: 'string', date_joined: 'number', email_address_visibility: 'number', avatar_version: 'number', is_mirror_dummy: 'boolean' },
  zerver_recipient: { id: 'number', type: 'number', type_id: 'number' },
  zerver_stream: { id: 'number', name: 'string', date_created: 'number', deactivated: 'boolean', description: 'string', invite_only: 'boolean', history_public_to_subscribers: 'boolean', is_web_public: 'boolean', message_retention_days: 'number?', is_recently_active: 'boolean', creator: 'number?' },
  zerver_subscription: { id: 'number', user_profile: 'number', recipient: 'number', active: 'boolean', color: 'string', is_muted: 'boolean', pin_to_top: 'boolean', desktop_notifications: 'boolean?', audible_notifications: 'boolean?', push_notifications: 'boolean?', email_notifications: 'boolean?', wildcard_mentions_notify: 'boolean?' },
  zerver_huddle: { id: 'number', group_size: 'number' },
  zerver_usergroup: { id: 'number' },
  zerver_namedusergroup: { name: 'string', description: 'string', is_system_group: 'boolean', deactivated: 'boolean', creator: 'number?', date_created: 'number?' },
  zerver_usergroupmembership: { user_group: 'number', user_profile: 'number' },
  zerver_groupgroupmembership: { supergroup: 'number', subgroup: 'number' },
  zerver_customprofilefield: { id: 'number', name: 'string', hint: 'string', order: 'number', field_type: 'number', field_data: 'string', display_in_profile_summary: 'boolean', required: 'boolean', editable_by_user: 'boolean' },
  zerver_customprofilefieldvalue: { user_profile: 'number', field: 'number', value: 'string' },
  zerver_defaultstream: { stream: 'number' },
  zerver_reaction: { user_profile: 'number', message: 'number', emoji_name: 'string', emoji_code: 'string', reaction_type: 'string' },
  zerver_submessage: { message: 'number', sender: 'number', msg_type: 'string', content: 'string' },
  zerver_alertword: { user_profile: 'number', word: 'string' },
  zerver_muteduser: { user_profile: 'number', muted_user: 'number', date_muted: 'number' },
  zerver_usertopic: { user_profile: 'number', stream: 'number', topic_name: 'string', last_updated: 'number', visibility_policy: 'number' },
  zerver_userstatus: { user_profile: 'number', status_text: 'string', emoji_name: 'string', emoji_code: 'string', reaction_type: 'string' },
  zerver_realmfilter: { pattern: 'string', url_template: 'string', order: 'number' },
  zerver_botstoragedata: { bot_profile: 'number', key: 'string', value: 'string' },
  zerver_client: { id: 'number', name: 'string' },
};
/** Tables an export must have; the others may be absent (older or other exporters). */
const requiredTables = new Set(['zerver_realm', 'zerver_userprofile', 'zerver_recipient', 'zerver_stream', 'zerver_subscription']);

const messageShapes: Record<keyof ZulipMessageFile, Shape> = {
  zerver_message: { id: 'number', sender: 'number', recipient: 'number', subject: 'string', content: 'string', rendered_content: 'string?', date_sent: 'number', edit_history: 'string?', sending_client: 'number' },
  zerver_usermessage: { user_profile: 'number', message: 'number', flags_mask: 'number' },
};

function checkRows(table: string, rows: unknown, shape: Shape, file: string): void {
  if (!Array.isArray(rows)) throw new ImportError(`${file}: ${table} is not a list`);
  for (const [index, row] of rows.entries()) {
    if (typeof row !== 'object' || row === null) throw new ImportError(`${file}: ${table}[${index}] is not an object`);
    for (const [field, kind] of Object.entries(shape)) {
      const value = (row as Record<string, unknown>)[field];
      const optional = kind.endsWith('?');
      if ((optional && value === null) || typeof value === kind.replace('?', '')) continue;
      throw new ImportError(`${file}: ${table}[${index}].${field} should be ${optional ? `${kind.slice(0, -1)} or null` : `a ${kind}`}`);
    }
  }
}

function readJson(dir: string, name: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  } catch (error) {
    throw new ImportError(`${name} cannot be read: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ImportError(`${name} is not a JSON object of tables`);
  return data as Record<string, unknown>;
}

function readRealm(dir: string): ZulipRealmTables {
  if (!existsSync(join(dir, 'realm.json'))) throw new ImportError(`${dir} has no realm.json: not a Zulip export`);
  const data = readJson(dir, 'realm.json');
  // Zulip's direct-message groups are still `zerver_huddle`; the future name is accepted too.
  if (data.zerver_huddle === undefined && data.zerver_directmessagegroup !== undefined) data.zerver_huddle = data.zerver_directmessagegroup;
  for (const [table, shape] of Object.entries(realmShapes)) {
    if (data[table] === undefined && !requiredTables.has(table)) data[table] = [];
    if (data[table] === undefined) throw new ImportError(`realm.json has no ${table}`);
    checkRows(table, data[table], shape, 'realm.json');
  }
  const tables = data as unknown as ZulipRealmTables;
  if (tables.zerver_realm.length !== 1) throw new ImportError(`realm.json: zerver_realm should have one row, not ${tables.zerver_realm.length}`);
  return tables;
}

function readMessageFiles(dir: string): ZulipMessageFile[] {
  const names = readdirSync(dir).filter((name) => /^messages-\d{6}\.json$/.test(name)).sort();
  return names.map((name, index) => {
    if (name !== messageFileName(index + 1)) throw new ImportError(`${messageFileName(index + 1)} is missing (found ${name})`);
    const data = readJson(dir, name);
    for (const [table, shape] of Object.entries(messageShapes)) checkRows(table, data[table], shape, name);
    return data as unknown as ZulipMessageFile;
  });
}

/** Refuses the import, naming the file and row at fault. */
const fail = (message: string): never => {
  throw new ImportError(message);
};

/** Every reference between rows resolves, and what must be unique is. */
function checkReferences(tables: ZulipRealmTables, files: ZulipMessageFile[]): void {
  const users = new Set([...tables.zerver_userprofile, ...tables.zerver_userprofile_mirrordummy].map((user) => user.id));
  const senders = new Set([...users, ...tables.zerver_userprofile_crossrealm.map((bot) => bot.id)]);
  const streams = new Set(tables.zerver_stream.map((stream) => stream.id));
  const recipients = new Map(tables.zerver_recipient.map((recipient) => [recipient.id, recipient]));
  for (const bot of tables.zerver_userprofile_crossrealm) if (!recipients.has(bot.recipient_id)) recipients.set(bot.recipient_id, { id: bot.recipient_id, type: RecipientType.personal, type_id: bot.id });
  for (const [index, group] of tables.zerver_namedusergroup.entries()) {
    if (typeof (group.usergroup_ptr ?? group.id) !== 'number') fail(`realm.json: zerver_namedusergroup[${index}] has neither usergroup_ptr nor id`);
  }
  const emails = new Set<string>();
  for (const user of tables.zerver_userprofile) {
    const email = (user.delivery_email || user.email).toLowerCase();
    if (emails.has(email)) fail(`realm.json: two users have the e-mail address ${email}`);
    emails.add(email);
  }
  for (const recipient of tables.zerver_recipient) {
    const known = recipient.type === RecipientType.stream ? streams : recipient.type === RecipientType.personal ? senders : undefined;
    if (known && !known.has(recipient.type_id)) fail(`realm.json: recipient ${recipient.id} names ${recipient.type === RecipientType.stream ? 'stream' : 'user'} ${recipient.type_id}, which is not in the export`);
  }
  for (const subscription of tables.zerver_subscription) {
    if (!users.has(subscription.user_profile)) fail(`realm.json: subscription ${subscription.id} is of user ${subscription.user_profile}, who is not in the export`);
    if (!recipients.has(subscription.recipient)) fail(`realm.json: subscription ${subscription.id} is to recipient ${subscription.recipient}, which is not in the export`);
  }
  const messageIds = checkMessageFiles(files, { users, senders, recipients });
  for (const reaction of tables.zerver_reaction) {
    if (!messageIds.has(reaction.message)) fail(`realm.json: a reaction is to message ${reaction.message}, which is not in the export`);
    if (!users.has(reaction.user_profile)) fail(`realm.json: a reaction is by user ${reaction.user_profile}, who is not in the export`);
  }
  for (const submessage of tables.zerver_submessage) {
    if (!messageIds.has(submessage.message)) fail(`realm.json: a submessage is of message ${submessage.message}, which is not in the export`);
    if (!users.has(submessage.sender)) fail(`realm.json: a submessage is by user ${submessage.sender}, who is not in the export`);
  }
  for (const row of tables.zerver_botstoragedata) {
    if (!users.has(row.bot_profile)) fail(`realm.json: a bot storage key is of user ${row.bot_profile}, who is not in the export`);
  }
  checkProfileFields(tables);
}

/** Each message file's messages (unique IDs, known senders and recipients, an edit history that is
 * a list) and UserMessage rows; the IDs of every message, for the rows that refer to messages. */
function checkMessageFiles(files: ZulipMessageFile[], known: { users: Set<number>; senders: Set<number>; recipients: Map<number, unknown> }): Set<number> {
  const { users, senders, recipients } = known;
  const messageIds = new Set<number>();
  for (const [index, file] of files.entries()) {
    const name = messageFileName(index + 1);
    for (const message of file.zerver_message) {
      if (messageIds.has(message.id)) fail(`${name}: message ${message.id} appears twice`);
      messageIds.add(message.id);
      if (!senders.has(message.sender)) fail(`${name}: message ${message.id} is from user ${message.sender}, who is not in the export`);
      if (!recipients.has(message.recipient)) fail(`${name}: message ${message.id} is to recipient ${message.recipient}, which is not in the export`);
      if (message.edit_history !== null) {
        try {
          if (!Array.isArray(JSON.parse(message.edit_history))) throw new Error('not a list');
        } catch {
          fail(`${name}: message ${message.id} has an edit_history that is not a JSON list`);
        }
      }
    }
    const inFile = new Set(file.zerver_message.map((message) => message.id));
    for (const row of file.zerver_usermessage) {
      if (!users.has(row.user_profile)) fail(`${name}: a UserMessage row is of user ${row.user_profile}, who is not in the export`);
      if (!inFile.has(row.message)) fail(`${name}: a UserMessage row is of message ${row.message}, which is not in this file`);
    }
  }
  return messageIds;
}

/** Custom profile fields' data and the person-picker fields' values are the JSON they must be. */
function checkProfileFields(tables: ZulipRealmTables): void {
  const parses = (text: string, fits: (value: unknown) => boolean): boolean => {
    try {
      return fits(JSON.parse(text));
    } catch {
      return false;
    }
  };
  for (const field of tables.zerver_customprofilefield) {
    if (field.field_data !== '' && !parses(field.field_data, (data) => typeof data === 'object' && data !== null)) fail(`realm.json: custom profile field ${field.id} has field_data that is not a JSON object`);
  }
  const personPickers = new Set(tables.zerver_customprofilefield.filter((field) => field.field_type === FieldType.users).map((field) => field.id));
  for (const value of tables.zerver_customprofilefieldvalue) {
    if (personPickers.has(value.field) && !parses(value.value, (ids) => Array.isArray(ids) && ids.every((id) => typeof id === 'number'))) fail(`realm.json: the value of person-picker field ${value.field} for user ${value.user_profile} is not a JSON list of user IDs`);
  }
}

export interface ImportSummary {
  realm_id: number;
  subdomain: string;
  users: number;
  channels: number;
  messages: number;
  /** Linkifiers whose pattern or templates Parley's linkifiers do not take (Python regular
   * expressions beyond RE2, say), left out with the reason. */
  skipped_linkifiers: string[];
}

/** Leaves out the linkifiers Parley cannot use; says which and why. */
function usableLinkifiers(tables: ZulipRealmTables): string[] {
  const skipped: string[] = [];
  tables.zerver_realmfilter = tables.zerver_realmfilter.filter((row) => {
    try {
      checkLinkifier(row.pattern, row.url_template, row.reverse_template ?? null, row.alternative_url_templates ?? []);
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      skipped.push(`${row.pattern}: ${error.message}`);
      return false;
    }
  });
  return skipped;
}

/** The export directory: `from` itself, or the one directory a .tar.gz holds (unpacked into
 * `scratch`). */
async function exportDirectory(from: string, scratch: string): Promise<string> {
  if (!existsSync(from)) throw new ImportError(`${from} does not exist`);
  if (statSync(from).isDirectory()) return from;
  try {
    await extract({ file: from, cwd: scratch, strict: true });
  } catch (error) {
    throw new ImportError(`${from} is neither a directory nor a readable .tar.gz: ${(error as Error).message}`);
  }
  const entries = readdirSync(scratch);
  if (existsSync(join(scratch, 'realm.json'))) return scratch;
  if (entries.length === 1 && statSync(join(scratch, entries[0]!)).isDirectory()) return join(scratch, entries[0]!);
  throw new ImportError(`${from} does not hold one export directory`);
}

/** Imports the export at `from` as a new realm with this subdomain. */
export async function importRealm(realms: RealmsHere, from: string, subdomain: string): Promise<ImportSummary> {
  if (realms.bySubdomainName(subdomain)) throw new ImportError(`a realm with subdomain '${subdomain}' exists; import makes a new realm`);
  const scratch = mkdtempSync(join(tmpdir(), 'parley-import-'));
  try {
    const dir = await exportDirectory(from, scratch);
    const tables = readRealm(dir);
    const files = readMessageFiles(dir);
    checkReferences(tables, files);
    const skipped = usableLinkifiers(tables);
    const name = tables.zerver_realm[0]!.name as string;
    const realm: RealmActor = await realms.create({ subdomain, name });
    const maps = await realm.ask('realm.import', null, tables);
    const clients: [number, string][] = tables.zerver_client.map((client) => [client.id, client.name]);
    let messages = 0;
    for (const file of files) {
      const ids = new Set(file.zerver_message.map((message) => message.id));
      const ofFile = <T extends { message: number }>(rows: T[]) => rows.filter((row) => ids.has(row.message));
      messages += (await realm.ask('realm.importMessages', null, { maps, file, reactions: ofFile(tables.zerver_reaction), submessages: ofFile(tables.zerver_submessage), clients })).messages;
    }
    return { realm_id: realm.realm.id, subdomain, users: tables.zerver_userprofile.length, channels: tables.zerver_stream.length, messages, skipped_linkifiers: skipped };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
