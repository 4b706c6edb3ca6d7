// The Zulip API version Parley speaks. Clients read these from /server_settings and /register.

/** The Zulip feature level whose behaviour Parley implements (the spec cites levels up to 404). */
export const ZULIP_FEATURE_LEVEL = 404;
export const ZULIP_VERSION = '11.0-parley-0.1.0';
export const ZULIP_MERGE_BASE = ZULIP_VERSION;
