// Bot storage (Zulip's zerver/views/storage.py): a bot reads, writes and removes its own keys, never
// another bot's; people have none. Every key and value is a string, and a bot holds at most
// BOT_STORAGE_LIMIT characters. A request that cannot be done whole changes nothing.
import { errors } from '../../errors.js';
import type { Owner } from '../../store/tables.js';
import { BOT_STORAGE_LIMIT, entrySize, sizeOf, type BotStorageEntry } from '../../users/botStorage.js';
import { botStorageId } from '../../store/store.js';
import { readCommand, writeCommand, type ReadContext } from '../context.js';

/** The calling bot's storage (Zulip's "Must be a bot user" for anyone else). */
function ownStorage(ctx: ReadContext): Owner {
  const user = ctx.user;
  if (!user.isBot) throw errors.botRequired();
  return ctx.ownerOf(user.id);
}

function entryOf(ctx: ReadContext, owner: Owner, key: string): BotStorageEntry | undefined {
  return ctx.store.botStorage.get(owner, ...botStorageId(key));
}

/** The entries of these keys, or all of the bot's when no keys are given; a key it does not hold
 * refuses the whole request. */
function entriesOf(ctx: ReadContext, owner: Owner, keys: readonly string[] | undefined): BotStorageEntry[] {
  if (keys === undefined) return ctx.store.botStorage.ofOwner(owner);
  return [...new Set(keys)].map((key) => {
    const entry = entryOf(ctx, owner, key);
    if (!entry) throw errors.botStorageKeyMissing();
    return entry;
  });
}

const storedSize = (ctx: ReadContext, owner: Owner): number => ctx.store.botStorageSizes.get(owner)?.characters ?? 0;

export const botStorageCommands = {
  'botStorage.get': readCommand((ctx, input: { keys?: readonly string[] }) => {
    const entries = entriesOf(ctx, ownStorage(ctx), input.keys);
    // fromEntries defines each key, so a stored "__proto__" is a key like any other.
    return { storage: Object.fromEntries(entries.map((entry) => [entry.key, entry.value])) };
  }),

  'botStorage.update': writeCommand((ctx, input: { entries: readonly (readonly [string, unknown])[] }) => {
    const owner = ownStorage(ctx);
    // ajv would turn numbers and booleans into strings; Zulip refuses them.
    const entries: BotStorageEntry[] = input.entries.map(([key, value]) => {
      if (typeof value !== 'string') throw errors.notAString(`storage["${key}"]`);
      return { key, value };
    });
    let size = storedSize(ctx, owner);
    for (const entry of entries) {
      const old = entryOf(ctx, owner, entry.key);
      size += entrySize(entry) - (old ? entrySize(old) : 0);
    }
    if (size > BOT_STORAGE_LIMIT) throw errors.botStorageFull(size - BOT_STORAGE_LIMIT, BOT_STORAGE_LIMIT);
    for (const entry of entries) ctx.save('botStorageEntry', { ...entry, userId: owner.userId });
    ctx.save('botStorageSize', { userId: owner.userId, characters: size });
    return {};
  }),

  'botStorage.remove': writeCommand((ctx, input: { keys?: readonly string[] }) => {
    const owner = ownStorage(ctx);
    const entries = entriesOf(ctx, owner, input.keys);
    for (const entry of entries) ctx.remove('botStorageEntry', { ...entry, userId: owner.userId });
    ctx.save('botStorageSize', { userId: owner.userId, characters: storedSize(ctx, owner) - sizeOf(entries) });
    return {};
  }),
};
