// Rendering new content before the realm is asked (POST /messages, and PATCH /messages/{id} with
// content): on a render worker for content worth the hop, with the realm's context as it is now
// (a realm on a thread of its own: as this thread's copy has it, without asking); the rest on this
// thread when the realm runs on a thread of its own; the realm uses the rendering if that context
// has not moved by the time it writes (renderFor, docs/ARCHITECTURE.md "Threads").
import type { UserRequest } from '../http/route.js';
import type { Prerendered } from '../messages/render.js';

/** Content whose rendering costs the realm's thread more than handing it to a worker and back:
 * code blocks, math, or length (measured: docs/ARCHITECTURE.md, "Threads"). */
const RENDER_ON_WORKER_CHARS = 1000;
const worthAWorker = (content: string): boolean => content.length >= RENDER_ON_WORKER_CHARS || /```|~~~|\$\$/.test(content);

/** Asks the realm with the content rendered on a worker when that is worth it (`ask` gets no
 * rendering otherwise, or when no worker could make one). `messageId`: an edit's message, whose
 * sender's settings the rendering takes. */
export async function withPrerendering<T>(request: UserRequest, content: string | undefined, messageId: number | undefined, ask: (prerendered?: Prerendered) => Promise<T>): Promise<T> {
  const renders = request.renders;
  if (content === undefined) return ask();
  // A realm on a thread of its own: the rest renders here, with this thread's copy of its context.
  if (!renders || !worthAWorker(content)) return ask(request.realm.prerender?.(content));
  const { version, options } = request.realm.renderVersion?.() ?? (await request.realm.answer('render.version', request.user.userId, { messageId }));
  const context = () => request.realm.answer('render.context', request.user.userId, {});
  const made = await renders.render(request.realm.realm.id, version, context, content, options);
  return ask(made === null ? undefined : { content, version, translateEmoticons: options.translateEmoticons, ...made });
}
