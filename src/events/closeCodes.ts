// WebSocket close codes of the event stream. After any of them a client may reconnect; what it
// should do next is said beside each.

export const CloseCode = {
  /** The client closed, or the server closed a socket that had nothing attached. */
  normal: 1000,
  /** The server is shutting down gracefully; queues are kept: reconnect later and attach again. */
  goingAway: 1001,
  /** A frame was not a valid control message (bad JSON/msgpack, unknown op, ack before attach). */
  badFrame: 4000,
  /** The queue does not exist, is not the user's, was deleted or collected: register again. */
  badEventQueueId: 4004,
  /** The client read too slowly and the send buffer passed its limit: reconnect and attach with
   * the last event ID processed; nothing is lost. */
  tooSlow: 4008,
  /** Another consumer (socket or long-poll) attached to the same queue. */
  replaced: 4009,
} as const;
