// Drafts (spec endpoint 11 and the rest): validated by the spec's Draft table, all of a request
// created or none, `drafts` events so the user's other clients stay in step.
import { canReadChannel } from '../../channels/access.js';
import { errors } from '../../errors.js';
import type { DraftRecord } from '../../messages/records.js';
import type { UserRecord } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { limits } from './limits.js';
import { draftView } from '../../messages/objects.js';

export interface DraftInput {
  type: DraftRecord['type'];
  to: number[];
  topic: string;
  content: string;
  timestamp?: number;
}


/** A draft as it will be stored, or the API error for the first rule it breaks. */
function checkDraft(ctx: CommandContext, user: UserRecord, input: DraftInput, id: number): DraftRecord {
  if (input.topic.includes('\u0000')) throw errors.badRequest('Topic must not contain null bytes');
  if (input.content.includes('\u0000')) throw errors.badRequest('Content must not contain null bytes');
  if ([...input.topic].length > limits.max_topic_length) throw errors.badRequest(`topic is too long (limit: ${limits.max_topic_length} characters)`);
  if ([...input.content].length > limits.max_message_length) throw errors.badRequest(`content is too long (limit: ${limits.max_message_length} characters)`);
  let to: number[] = [];
  let topic = '';
  if (input.type === 'stream') {
    if (input.to.length !== 1) throw errors.badRequest('Must specify exactly 1 channel ID for channel messages');
    const channel = ctx.state.channels.get(input.to[0]!);
    if (!channel || !canReadChannel(ctx.state, channel, user)) throw errors.badRequest('Invalid channel ID');
    to = [channel.id];
    topic = input.topic;
  } else if (input.type === 'private') {
    for (const userId of input.to) if (!ctx.state.users.get(userId)?.isActive) throw errors.badRequest(`Invalid user ID ${userId}`);
    to = [...new Set(input.to)];
  }
  // Unaddressed drafts ignore `to` (and their topic), as the spec says.
  return { id, type: input.type, to, topic, content: input.content, timestamp: input.timestamp ?? ctx.now };
}

function ownDraft(ctx: CommandContext, user: UserRecord, id: number): DraftRecord {
  const draft = ctx.store.drafts.get(ctx.ownerOf(user.id), id);
  if (!draft) throw errors.draftNotFound();
  return draft;
}

const userDrafts = (ctx: ReadContext, userId: number): DraftRecord[] => ctx.store.drafts.ofOwner(ctx.ownerOf(userId));

export const draftCommands = {
  'drafts.list': readCommand((ctx) => userDrafts(ctx, ctx.user.id).map(draftView)),

  'drafts.create': writeCommand((ctx, input: { drafts: DraftInput[] }) => {
    const user = ctx.user;
    // Every draft is checked before any gets an ID or is stored: all of them, or none.
    const drafts = input.drafts.map((draft) => checkDraft(ctx, user, draft, 0)).map((draft) => ({ ...draft, id: ctx.store.nextId('draft') }));
    for (const draft of drafts) ctx.store.drafts.put(ctx.ownerOf(user.id), draft);
    if (drafts.length > 0) ctx.emit({ type: 'drafts', op: 'add', drafts: drafts.map(draftView) }, [user.id]);
    return { ids: drafts.map((draft) => draft.id) };
  }),

  'drafts.update': writeCommand((ctx, input: { id: number; draft: DraftInput }) => {
    const user = ctx.user;
    ownDraft(ctx, user, input.id);
    const draft = checkDraft(ctx, user, input.draft, input.id);
    ctx.store.drafts.put(ctx.ownerOf(user.id), draft);
    ctx.emit({ type: 'drafts', op: 'update', draft: draftView(draft) }, [user.id]);
    return {};
  }),

  'drafts.delete': writeCommand((ctx, input: { id: number }) => {
    const user = ctx.user;
    ownDraft(ctx, user, input.id);
    ctx.store.drafts.remove(ctx.ownerOf(user.id), input.id);
    ctx.emit({ type: 'drafts', op: 'remove', draft_id: input.id }, [user.id]);
    return {};
  }),
};

export const draftsInitialState = (ctx: ReadContext) => ({ drafts: userDrafts(ctx, ctx.user.id).map(draftView) });
