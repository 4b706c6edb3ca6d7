// Zulip's event filters of every integration's URL: `only_events` and `exclude_events`, lists of
// shell-style patterns (fnmatch) over the event types an integration names.
import picomatch from 'picomatch';

const matches = (eventType: string, patterns: readonly string[]): boolean => patterns.some((pattern) => picomatch.isMatch(eventType, pattern, { dot: true }));

/** Whether an event of this type is posted under the URL's filters. */
export function passesEventFilters(eventType: string, only: readonly string[] | undefined, exclude: readonly string[] | undefined): boolean {
  if (only !== undefined && !matches(eventType, only)) return false;
  return exclude === undefined || !matches(eventType, exclude);
}
