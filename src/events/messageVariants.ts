// A message event's variants. Queues get a message event in one of four variants (Zulip's
// apply_markdown × client_gravatar); an emission carries one, for apply_markdown without
// client_gravatar, and what the others differ in: the content as Markdown (the message's record)
// and the avatar clients with client_gravatar get. So an emission stays plain data, the same on
// every thread and node it travels to, and each variant is made where a queue wants it.
import type { Emitted, ZulipEvent } from './types.js';

export interface VariantSettings {
  applyMarkdown: boolean;
  clientGravatar: boolean;
}

/** The emission's event as a queue with these settings gets it: one shared object per distinct
 * variant, made on first use (a variant that differs from the emitted event in nothing is it). */
export function variantsOf({ event, message }: Emitted): (settings: VariantSettings) => ZulipEvent {
  if (event.type !== 'message' || message === undefined) return () => event;
  const sameAvatar = message.gravatarAvatar === event.message.avatar_url;
  const made: ZulipEvent[] = [event];
  return ({ applyMarkdown, clientGravatar }) => {
    const gravatar = clientGravatar && !sameAvatar;
    const index = (applyMarkdown ? 0 : 2) + (gravatar ? 1 : 0);
    return (made[index] ??= {
      ...event,
      message: {
        ...event.message,
        ...(applyMarkdown ? {} : { content: message.record.content, content_type: 'text/x-markdown' as const }),
        ...(gravatar ? { avatar_url: message.gravatarAvatar } : {}),
      },
    });
  };
}
