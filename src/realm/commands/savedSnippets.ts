// Saved snippets: a user's own, created, edited and removed as Zulip does, with `saved_snippets`
// events so the user's other clients stay in step, and register state.
import { errors } from '../../errors.js';
import { checkSnippetText, MAX_SNIPPET_TITLE_LENGTH, savedSnippetView, type SavedSnippetRecord } from '../../messages/savedSnippets.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { limits } from './limits.js';

const checkTitle = (title: string) => checkSnippetText('title', title, MAX_SNIPPET_TITLE_LENGTH);
const checkContent = (content: string) => checkSnippetText('content', content, limits.max_message_length);

function ownSnippet(ctx: CommandContext, id: number): SavedSnippetRecord {
  const snippet = ctx.store.savedSnippets.get(ctx.ownerOf(ctx.user.id), id);
  if (!snippet) throw errors.savedSnippetNotFound();
  return snippet;
}

const userSnippets = (ctx: ReadContext) => ctx.store.savedSnippets.ofOwner(ctx.ownerOf(ctx.user.id)).map(savedSnippetView);

export const savedSnippetCommands = {
  'savedSnippets.list': readCommand((ctx) => userSnippets(ctx)),

  'savedSnippets.create': writeCommand((ctx, input: { title: string; content: string }) => {
    const userId = ctx.user.id;
    const title = checkTitle(input.title);
    const content = checkContent(input.content);
    const snippet = { id: ctx.store.nextId('savedSnippet'), title, content, dateCreated: ctx.now };
    ctx.save('savedSnippet', { ...snippet, userId });
    ctx.emit({ type: 'saved_snippets', op: 'add', saved_snippet: savedSnippetView(snippet) }, [userId]);
    return { saved_snippet_id: snippet.id };
  }),

  'savedSnippets.update': writeCommand((ctx, input: { id: number; title?: string; content?: string }) => {
    const userId = ctx.user.id;
    const current = ownSnippet(ctx, input.id);
    // Nothing to change: no event, as Zulip.
    if (input.title === undefined && input.content === undefined) return {};
    const snippet = {
      ...current,
      ...(input.title === undefined ? {} : { title: checkTitle(input.title) }),
      ...(input.content === undefined ? {} : { content: checkContent(input.content) }),
    };
    ctx.save('savedSnippet', { ...snippet, userId });
    ctx.emit({ type: 'saved_snippets', op: 'update', saved_snippet: savedSnippetView(snippet) }, [userId]);
    return {};
  }),

  'savedSnippets.delete': writeCommand((ctx, input: { id: number }) => {
    const userId = ctx.user.id;
    const snippet = ownSnippet(ctx, input.id);
    ctx.remove('savedSnippet', { ...snippet, userId });
    ctx.emit({ type: 'saved_snippets', op: 'remove', saved_snippet_id: snippet.id }, [userId]);
    return {};
  }),
};

export const savedSnippetsInitialState = (ctx: ReadContext) => ({ saved_snippets: userSnippets(ctx) });
