// Jenkins through its Notification plugin (jenkinsci/notification-plugin, JSON format): one request
// per phase of a build — STARTED, COMPLETED (the build's result is known), FINALIZED (post-build
// steps such as archiving ran too). Zulip has no webhook of its own for it (its Jenkins plugin posts
// through the API), so the topic follows that plugin's default: the job's name. QUEUED is not
// described (the build has no number worth telling yet).
import type { EventHandler, Integration } from './integration.js';
import type { Payload } from './payload.js';

/** "Build #12", linked to the build's page when Jenkins knows its own URL (`full_url`). */
function build(payload: Payload): string {
  const build = payload.get('build');
  const label = `#${build.get('number').num()}`;
  const url = build.get('full_url').optStr();
  return url ? `[${label}](${url})` : label;
}

/** The branch and commit built, where the job checks out from Git. */
function source(payload: Payload): string {
  const scm = payload.at('build', 'scm');
  const branch = scm.get('branch').optStr();
  const commit = scm.get('commit').optStr();
  const parts = [branch && `branch \`${branch}\``, commit && `commit \`${commit.slice(0, 11)}\``].filter(Boolean);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** A phase's message: what happened to the build, and its result once there is one. */
const phase =
  (happened: string, withStatus: boolean): EventHandler =>
  ({ payload }) => {
    const status = withStatus ? `: **${payload.at('build', 'status').str()}**` : '';
    return { topic: payload.get('name').str(), content: `Build ${build(payload)} of **${payload.get('name').str()}**${source(payload)} ${happened}${status}.` };
  };

export const jenkins: Integration = {
  name: 'jenkins',
  displayName: 'Jenkins',
  category: 'continuous integration',
  eventType: ({ payload }) => payload.at('build', 'phase').str().toLowerCase(),
  events: {
    started: phase('started', false),
    completed: phase('completed', true),
    finalized: phase('finished, post-build steps included', true),
  },
};
