// A render worker: renders message content for the main thread with the newest context each realm
// sent it (render.ts's ContextRenderer), so the realm's thread does not (docs/ARCHITECTURE.md,
// "Threads"). A request for a version it does not hold, or content that fails to render, is
// answered with nothing: the realm then renders it itself.
import { parentPort } from 'node:worker_threads';
import { ContextRenderer } from './render.js';
import type { ToWorker, FromWorker } from './renderPool.js';

const renderers = new Map<number, ContextRenderer>();
const port = parentPort!;

port.on('message', (message: ToWorker) => {
  if (message.kind === 'context') {
    renderers.set(message.realmId, new ContextRenderer(message.context));
    return;
  }
  const renderer = renderers.get(message.realmId);
  let answer: FromWorker = { id: message.id, made: null };
  if (renderer?.version === message.version) {
    try {
      answer = { id: message.id, made: renderer.render(message.content, message.options) };
    } catch {
      // The realm renders it again and reports what went wrong.
    }
  }
  port.postMessage(answer);
});

// Loaded (the renderer with it): requests may come.
port.postMessage({ ready: true } satisfies FromWorker);
