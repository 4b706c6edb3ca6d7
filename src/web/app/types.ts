// The server's shapes, as the client sees them: taken from the server's own views and event
// catalogue (type imports only: nothing of the server is bundled).
import type { MessageDetails, MessageEvent, ZulipEvent } from '../../events/catalogue.js';
import type { subscriptionView } from '../../channels/view.js';
import type { UserView } from '../../users/view.js';

export type { MessageDetails, ZulipEvent };
/** A message as GET /messages and message events carry it, with the user's flags. */
export type Message = MessageEvent['message'] & { flags: string[] };
export type Reaction = Message['reactions'][number];
export type Subscription = ReturnType<typeof subscriptionView>;
export type User = UserView;
/** An event as the queue delivers it. */
export type QueuedEvent = ZulipEvent & { id: number };
