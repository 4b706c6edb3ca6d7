// The user's own settings as other parts of the server read them.
import type { UserRecord } from './records.js';

/** Whether `:)` and the like in this user's messages become emoji (Zulip's default: off). */
export const translateEmoticons = (user: UserRecord): boolean => user.translateEmoticons ?? false;
