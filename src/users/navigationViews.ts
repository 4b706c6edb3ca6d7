// Navigation views: a user's settings for Zulip's built-in views (pinned or in "More views") and
// their own named views, each known by its URL fragment.
import { errors } from '../errors.js';

export interface NavigationViewRecord {
  id: number;
  fragment: string;
  isPinned: boolean;
  /** Only custom views have one. */
  name: string | null;
}

/** Zulip's BUILT_IN_VIEW_FRAGMENTS. */
const BUILT_IN_FRAGMENTS = new Set(['inbox', 'recent', 'feed', 'drafts', 'narrow/has/reaction/sender/me', 'narrow/is/mentioned', 'narrow/is/starred', 'scheduled', 'reminders']);

export const isBuiltInView = (fragment: string): boolean => BUILT_IN_FRAGMENTS.has(fragment);

/** A fragment or name as Zulip takes it: trimmed, and not blank. */
export function checkViewText(field: 'fragment' | 'name', value: string): string {
  const text = value.trim();
  if (text === '') throw errors.badRequest(`${field} cannot be blank`);
  return text;
}

/** The rules a view's name follows among the user's other views. */
export function checkViewName(fragment: string, name: string | undefined, views: readonly NavigationViewRecord[]): void {
  if (name === undefined) return;
  if (isBuiltInView(fragment)) throw errors.badRequest('Built-in views cannot have a custom name.');
  if (views.some((view) => view.name === name)) throw errors.badRequest('Navigation view already exists.');
}

export const navigationViewView = (view: NavigationViewRecord) => ({ fragment: view.fragment, is_pinned: view.isPinned, name: view.name });
