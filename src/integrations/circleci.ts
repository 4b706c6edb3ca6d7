// CircleCI's webhooks (Zulip's circleci integration): a workflow or a job that completed, and the
// test ping of a webhook being set up. The topic is the project; the message tells the outcome, the
// pipeline, and the commit that triggered it (GitHub and Bitbucket pipelines carry it under
// `pipeline.vcs`, GitLab ones under `pipeline.trigger_parameters.gitlab`).
import { entryOf, type Integration } from './integration.js';
import type { Payload } from './payload.js';

/** How an outcome reads after "Workflow … of pipeline #n" (an outcome CircleCI adds later reads as sent). */
const outcomes: Readonly<Record<string, string>> = {
  success: 'succeeded',
  failed: 'failed',
  canceled: 'was canceled',
  unauthorized: 'was unauthorized',
  error: 'had an error',
};

const outcome = (status: string): string => entryOf(outcomes, status) ?? status;

/** Git's abbreviation as Zulip's git integrations show it. */
const shortSha = (sha: string): string => sha.slice(0, 11);

/** The line that tells what the pipeline ran on. */
function trigger(pipeline: Payload): string {
  const vcs = pipeline.get('vcs');
  if (!vcs.exists) {
    const gitlab = pipeline.at('trigger_parameters', 'gitlab');
    const sha = gitlab.get('checkout_sha').str();
    const link = `${gitlab.get('web_url').str()}/-/commit/${sha}`;
    return `Triggered by [\`${shortSha(sha)}: ${gitlab.get('commit_title').str()}\`](${link}) on branch \`${gitlab.get('branch').str()}\` by ${gitlab.get('commit_author_name').str()}.`;
  }
  const sha = vcs.get('revision').str();
  // GitHub names a commit's page /commit/, Bitbucket /commits/.
  const link = `${vcs.get('target_repository_url').str()}/${vcs.get('provider_name').str() === 'github' ? 'commit' : 'commits'}/${sha}`;
  const branch = vcs.get('branch').optStr();
  const subject = vcs.at('commit', 'subject').optStr();
  // A pipeline started by hand, or by a tag, has no commit details.
  if (!subject) {
    return branch ? `Triggered by hand on the head of \`${branch}\`, [${shortSha(sha)}](${link}).` : `Triggered by a tag, on [${shortSha(sha)}](${link}).`;
  }
  return `Triggered by [\`${shortSha(sha)}: ${subject}\`](${link}) on branch \`${branch ?? ''}\` by ${vcs.at('commit', 'author', 'name').str()}.`;
}

const topic = (payload: Payload): string => payload.at('project', 'name').str();

export const circleci: Integration = {
  name: 'circleci',
  displayName: 'CircleCI',
  category: 'continuous integration',
  eventType: ({ payload }) => payload.get('type').str(),
  events: {
    ping: ({ payload }) => ({ topic: 'Test event', content: `The CircleCI webhook **${payload.at('webhook', 'name').str()}** is set up: its test event arrived.` }),
    'workflow-completed': ({ payload }) => {
      const workflow = payload.get('workflow');
      const pipeline = payload.get('pipeline');
      return {
        topic: topic(payload),
        content: `Workflow [\`${workflow.get('name').str()}\`](${workflow.get('url').str()}) of pipeline #${pipeline.get('number').num()} ${outcome(workflow.get('status').str())}.\n\n${trigger(pipeline)}`,
      };
    },
    'job-completed': ({ payload }) => {
      const job = payload.get('job');
      const pipeline = payload.get('pipeline');
      return {
        topic: topic(payload),
        content: `Job \`${job.get('name').str()}\` of pipeline #${pipeline.get('number').num()} ${outcome(job.get('status').str())}.\n\n${trigger(pipeline)}`,
      };
    },
  },
};
