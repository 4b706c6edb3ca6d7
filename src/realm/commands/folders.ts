// Channel folders (spec endpoint 5 and the rest): administrators create, rename, describe,
// archive and reorder them; `channel_folder` events; register state.
import type { FolderRecord } from '../../channels/records.js';
import { errors } from '../../errors.js';
import { renderMarkdown } from '../../markdown/index.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { requireAdmin } from './admin.js';
import { checkOrder } from './order.js';
import { limits } from './limits.js';
import { folderView } from '../../channels/view.js';

const sortedFolders = (ctx: ReadContext): FolderRecord[] => [...ctx.state.folders.values()].sort((a, b) => a.order - b.order);

function checkName(ctx: CommandContext, name: string, id: number | null): string {
  const trimmed = name.trim();
  if (trimmed === '') throw errors.badRequest("Channel folder name can't be empty.");
  if ([...trimmed].length > limits.max_channel_folder_name_length) {
    throw errors.badRequest(`name is too long (limit: ${limits.max_channel_folder_name_length} characters)`);
  }
  for (const folder of ctx.state.folders.values()) {
    if (folder.id !== id && !folder.isArchived && folder.name.toLowerCase() === trimmed.toLowerCase()) throw errors.badRequest(`Channel folder name '${trimmed}' is already in use.`);
  }
  return trimmed;
}

function checkDescription(description: string): string {
  if ([...description].length > limits.max_channel_folder_description_length) {
    throw errors.badRequest(`description is too long (limit: ${limits.max_channel_folder_description_length} characters)`);
  }
  return description;
}

/** A folder a channel may be put in: existing and not archived. */
export function usableFolder(ctx: CommandContext, id: number): FolderRecord {
  const folder = ctx.state.folders.get(id);
  if (!folder || folder.isArchived) throw errors.badRequest('Invalid channel folder ID');
  return folder;
}

export const folderCommands = {
  'folders.list': readCommand((ctx, input: { includeArchived: boolean }) =>
    sortedFolders(ctx)
      .filter((folder) => input.includeArchived || !folder.isArchived)
      .map(folderView),
  ),

  'folders.create': writeCommand((ctx, input: { name: string; description: string }) => {
    requireAdmin(ctx);
    const name = checkName(ctx, input.name, null);
    const description = checkDescription(input.description);
    const folder: FolderRecord = {
      id: ctx.store.nextId('folder'),
      realmId: ctx.state.realm.id,
      name,
      description,
      renderedDescription: renderMarkdown(description),
      order: Math.max(-1, ...[...ctx.state.folders.values()].map((other) => other.order)) + 1,
      creatorId: ctx.user.id,
      dateCreated: ctx.now,
      isArchived: false,
    };
    ctx.save('folder', folder);
    ctx.emit({ type: 'channel_folder', op: 'add', channel_folder: folderView(folder) }, ctx.activeUserIds());
    return { channel_folder_id: folder.id };
  }),

  /** Spec endpoint 5: only the passed fields change; an unknown ID is BAD_REQUEST. */
  'folders.update': writeCommand((ctx, input: { id: number; name?: string; description?: string; isArchived?: boolean }) => {
    requireAdmin(ctx);
    const folder = ctx.state.folders.get(input.id);
    if (!folder) throw errors.badRequest('Invalid channel folder ID');
    const data: Record<string, unknown> = {};
    const updated = { ...folder };
    if (input.name !== undefined) data.name = updated.name = checkName(ctx, input.name, folder.id);
    if (input.description !== undefined) {
      data.description = updated.description = checkDescription(input.description);
      data.rendered_description = updated.renderedDescription = renderMarkdown(updated.description);
    }
    if (input.isArchived !== undefined) data.is_archived = updated.isArchived = input.isArchived;
    ctx.save('folder', updated);
    ctx.emit({ type: 'channel_folder', op: 'update', channel_folder_id: folder.id, data }, ctx.activeUserIds());
    return {};
  }),

  'folders.reorder': writeCommand((ctx, input: { order: number[] }) => {
    requireAdmin(ctx);
    checkOrder(ctx.state.folders.keys(), input.order);
    input.order.forEach((id, index) => ctx.save('folder', { ...ctx.state.folders.get(id)!, order: index }));
    ctx.emit({ type: 'channel_folder', op: 'reorder', order: input.order }, ctx.activeUserIds());
    return {};
  }),
};

export const foldersInitialState = (ctx: ReadContext) => ({ channel_folders: sortedFolders(ctx).map(folderView) });
