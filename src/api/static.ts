// Files the API points clients to: the emoji name table behind register's server_emoji_data_url
// and the organization's default logo. Both are built once, at start-up.
import { codeToNames } from '../emoji/catalog.js';
import { cacheFor, FileBody } from '../http/route.js';

const DAY = cacheFor(24 * 3600);

const emojiData = new FileBody('application/json', Buffer.from(JSON.stringify({ code_to_names: codeToNames() })), DAY);

/** A plain wordmark: the organization has not uploaded a logo of its own. */
const logo = new FileBody(
  'image/svg+xml',
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40" viewBox="0 0 160 40"><rect width="40" height="40" rx="8" fill="#6492fd"/><text x="20" y="28" font-family="sans-serif" font-size="24" font-weight="bold" fill="#fff" text-anchor="middle">P</text><text x="50" y="28" font-family="sans-serif" font-size="22" fill="#333">Parley</text></svg>',
  ),
  DAY,
);

export const getEmojiData = (): FileBody => emojiData;
export const getDefaultLogo = (): FileBody => logo;
