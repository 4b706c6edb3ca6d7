// Uploaded files (Zulip's Attachment): recording an upload within the organization's quota, the
// owner's list, deleting, the download rule (the owner, or whoever may read a message linking to
// the file), and messages claiming the files their content links to. `attachment` events go to
// the owner.
import { errors } from '../../errors.js';
import { attachmentView, linkedPathIds, type AttachmentRecord } from '../../messages/attachments.js';
import type { MessageRecord } from '../../messages/records.js';
import type { UserRecord } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { messageAccess } from './messageAccess.js';
import { isSignedBy, TEMPORARY_URL_SECONDS, temporaryToken, tokenClaim } from '../../files/temporaryUrl.js';

export interface UploadInput {
  name: string;
  pathId: string;
  size: number;
  contentType: string;
}

const MIB = 1024 * 1024;

function announce(ctx: CommandContext, op: 'add' | 'update', record: AttachmentRecord): void {
  ctx.emit({ type: 'attachment', op, attachment: attachmentView(record), upload_space_used: ctx.state.uploadSpaceUsed() }, [record.ownerId]);
}

/** Zulip's validate_attachment_request: the owner, or a reader of a message that links to it. */
function mayDownload(ctx: Pick<ReadContext, 'state' | 'store'>, user: UserRecord, record: AttachmentRecord): boolean {
  if (record.ownerId === user.id) return true;
  return record.messages.some(({ id }) => {
    const message = ctx.store.messages.get(id);
    return message !== undefined && messageAccess(ctx, user, message) !== null;
  });
}

/** Keeps the files a message links to in step with its content: links that appeared claim their
 * file for the message (if its sender may read the file, as Zulip's do_claim_attachments), links
 * that went away release it. Sending passes `before` = '', deleting `after` = ''. */
export function relinkAttachments(ctx: CommandContext, message: Pick<MessageRecord, 'id' | 'senderId' | 'timestamp'>, before: string, after: string): void {
  const previous = new Set(linkedPathIds(before));
  const next = new Set(linkedPathIds(after));
  const sender = ctx.state.users.get(message.senderId);
  for (const pathId of new Set([...previous, ...next])) {
    const record = ctx.state.attachmentByPath(pathId);
    if (!record || previous.has(pathId) === next.has(pathId)) continue;
    const linked = record.messages.some(({ id }) => id === message.id);
    if (next.has(pathId) && !linked && sender && mayDownload(ctx, sender, record)) {
      const messages = [...record.messages, { id: message.id, dateSent: message.timestamp }].sort((a, b) => a.id - b.id);
      update(ctx, { ...record, messages });
    } else if (!next.has(pathId) && linked) {
      update(ctx, { ...record, messages: record.messages.filter(({ id }) => id !== message.id) });
    }
  }
}

function update(ctx: CommandContext, record: AttachmentRecord): void {
  ctx.save('attachment', record);
  announce(ctx, 'update', record);
}

/** Sending: the files the new message links to. */
export const claimAttachments = (ctx: CommandContext, sender: UserRecord, message: MessageRecord): void =>
  relinkAttachments(ctx, { id: message.id, senderId: sender.id, timestamp: message.timestamp }, '', message.renderedContent);

function ownAttachment(ctx: CommandContext, id: number): AttachmentRecord {
  const record = ctx.state.attachments.get(id);
  if (!record || record.ownerId !== ctx.user.id) throw errors.invalidAttachment();
  return record;
}

export const attachmentCommands = {
  /** A file the upload route has stored: recorded if the organization's quota allows it (else the
   * route removes the file). */
  'attachments.create': writeCommand((ctx, input: UploadInput) => {
    const owner = ctx.user;
    const quota = ctx.config.uploadQuotaMib;
    if (quota !== null && ctx.state.uploadSpaceUsed() + input.size > quota * MIB) throw errors.uploadQuotaExceeded();
    const record: AttachmentRecord = {
      id: ctx.store.nextId('attachment'),
      realmId: ctx.state.realm.id,
      ownerId: owner.id,
      name: input.name,
      pathId: input.pathId,
      size: input.size,
      contentType: input.contentType,
      createTime: ctx.now,
      messages: [],
    };
    ctx.save('attachment', record);
    announce(ctx, 'add', record);
    return { id: record.id };
  }),

  'attachments.list': readCommand((ctx) => {
    const owner = ctx.user;
    const attachments = [...ctx.state.attachments.values()].filter((record) => record.ownerId === owner.id).sort((a, b) => a.id - b.id);
    return { attachments: attachments.map(attachmentView), upload_space_used: ctx.state.uploadSpaceUsed() };
  }),

  /** Forgets the file; the route then removes its bytes. Messages keep their (now dead) links. */
  'attachments.delete': writeCommand((ctx, input: { id: number }) => {
    const record = ownAttachment(ctx, input.id);
    ctx.remove('attachment', record);
    ctx.emit({ type: 'attachment', op: 'remove', attachment: { id: record.id }, upload_space_used: ctx.state.uploadSpaceUsed() }, [record.ownerId]);
    return { pathId: record.pathId };
  }),

  /** Whether the user may download the file at a path ID: what to serve it as, or the error. */
  'attachments.access': readCommand((ctx, input: { pathId: string }) => {
    const record = ctx.state.attachmentByPath(input.pathId);
    if (!record) throw errors.fileNotFound();
    if (!mayDownload(ctx, ctx.user, record)) throw errors.fileForbidden();
    return { name: record.name, contentType: record.contentType };
  }),

  /** A temporary URL's token for a file the user may read (Zulip's get-file-temporary-url). */
  'attachments.temporaryToken': readCommand((ctx, input: { pathId: string }) => {
    const record = ctx.state.attachmentByPath(input.pathId);
    if (!record) throw errors.badRequest('Invalid filename');
    if (!mayDownload(ctx, ctx.user, record)) throw errors.badRequest('You are not authorized to view this file.');
    return { token: temporaryToken(ctx.user.apiKey, { pathId: input.pathId, userId: ctx.user.id, expires: ctx.now + TEMPORARY_URL_SECONDS }) };
  }),

  /** The file a temporary URL names, if its token is signed by its user, unexpired, and the user may
   * still read the file. */
  'attachments.redeemToken': readCommand((ctx, input: { token: string }) => {
    const claim = tokenClaim(input.token);
    const user = claim && ctx.state.users.get(claim.userId);
    const record = claim && ctx.state.attachmentByPath(claim.pathId);
    if (!claim || !user?.isActive || !record || claim.expires < ctx.now || !isSignedBy(user.apiKey, input.token) || !mayDownload(ctx, user, record)) throw errors.fileNotFound();
    return { pathId: claim.pathId, name: record.name, contentType: record.contentType };
  }),
};
