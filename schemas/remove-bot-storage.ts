// The keys to remove, as GET /bot_storage takes them: without `keys`, every key of the bot's.
export { default } from './get-bot-storage.js';
