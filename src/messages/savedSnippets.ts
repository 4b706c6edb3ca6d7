// Saved snippets: a user's titled pieces of message content, as Zulip keeps them (titles of at most
// 60 characters, content of at most a message's length, both trimmed and never empty).
import { errors } from '../errors.js';

export interface SavedSnippetRecord {
  id: number;
  title: string;
  content: string;
  dateCreated: number;
}

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
export const MAX_SNIPPET_TITLE_LENGTH = 60;

/** A snippet's title or content as stored: trimmed, and not empty nor over its limit. */
export function checkSnippetText(field: 'title' | 'content', value: string, limit: number): string {
  const text = value.trim();
  if (text === '') throw errors.badRequest(`${field === 'title' ? 'Title' : 'Content'} cannot be empty.`);
  if ([...text].length > limit) throw errors.badRequest(`${field} is too long (limit: ${limit} characters)`);
  return text;
}

export const savedSnippetView = (snippet: SavedSnippetRecord) => ({ id: snippet.id, title: snippet.title, content: snippet.content, date_created: snippet.dateCreated });
