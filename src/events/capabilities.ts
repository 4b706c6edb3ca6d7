// Register's client_capabilities: what a client understands, and which of them change the events
// its queue is sent.
/** Register's `client_capabilities`: what the client understands (Zulip's names). */
export interface ClientCapabilities {
  user_settings_object?: boolean;
  [capability: string]: boolean | undefined;
}

/** The capabilities whose absence changes what a client is sent (Zulip's names). */
const eventCapabilities = ['archived_channels', 'bulk_message_deletion', 'empty_topic_name', 'include_deactivated_groups', 'individual_emoji_changes', 'linkifier_url_template', 'simplified_presence_events', 'stream_typing_notifications', 'user_list_incomplete'] as const;

export type Capability = (typeof eventCapabilities)[number];

/** The capabilities of a register that change events, as its queue keeps them. */
export const declaredCapabilities = (declared: ClientCapabilities): Capability[] => eventCapabilities.filter((name) => declared[name] === true);
