// Typing notifications (Zulip's zerver/actions/typing.py): announced to the conversation as they
// happen and kept nowhere. The server never expires them; clients do, with the timings register
// reports (Zulip's settings).

/** Zulip's typing-notification protocol timings, in milliseconds. */
export const typingTiming = {
  /** A client drops another's typing indicator after this long without a new "start". */
  startedExpiry: 45_000,
  /** A client sends "stop" after the user stopped composing for this long. */
  stoppedWait: 12_000,
  /** A client repeats "start" this often while the user composes. */
  startedWait: 30_000,
} as const;

/** Channels with more subscribers than this get no typing notifications (Zulip's
 * MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS). */
export const MAX_CHANNEL_SIZE_FOR_TYPING = 100;
