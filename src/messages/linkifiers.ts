// Linkifiers (spec endpoint 18): patterns compiled by RE2 (re2js, linear time, so no pattern can
// stall the server), URL templates per RFC 6570 (url-template) that may use only the pattern's
// named groups, and reverse templates (reverseTemplate.ts) whose variables are the pattern's groups.
import { RE2JS } from 're2js';
import { parseTemplate } from 'url-template';
import { errors } from '../errors.js';
import { reverseVariables, roundTrips } from './reverseTemplate.js';

export interface LinkifierRecord {
  id: number;
  realmId: number;
  pattern: string;
  urlTemplate: string;
  reverseTemplate: string | null;
  alternativeUrlTemplates: string[];
  order: number;
}

export interface CompiledLinkifier {
  regex: RE2JS;
  groups: string[];
  expand(values: Record<string, string>): string;
}

/** The variable names of an RFC 6570 template, or undefined when it is not a valid template. */
export function templateVariables(template: string): string[] | undefined {
  const expressions = [...template.matchAll(/\{([^{}]*)\}/g)].map((match) => match[1]!);
  if (template.replace(/\{[^{}]*\}/g, '').match(/[{}]/)) return undefined;
  const names: string[] = [];
  for (const expression of expressions) {
    for (const spec of expression.replace(/^[+#./;?&]/, '').split(',')) {
      const name = spec.replace(/(\*|:\d+)$/, '');
      if (!/^[A-Za-z0-9_]+$/.test(name)) return undefined;
      names.push(name);
    }
  }
  return names;
}

export function compileLinkifier(pattern: string, urlTemplate: string): CompiledLinkifier {
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch (error) {
    throw errors.badRequest(`Invalid linkifier pattern: ${(error as Error).message}`);
  }
  const groups = Object.keys(regex.namedGroups());
  const template = parseTemplate(urlTemplate);
  return { regex, groups, expand: (values) => template.expand(values) };
}

/** Checks a definition; returns the stored reverse template (an empty string resets it to null). */
export function checkLinkifier(pattern: string, urlTemplate: string, reverseTemplate: string | null, alternatives: readonly string[]): string | null {
  const { regex, groups } = compileLinkifier(pattern, urlTemplate);
  for (const template of [urlTemplate, ...alternatives]) {
    const variables = templateVariables(template);
    if (!variables) throw errors.badRequest('Invalid URL template.');
    for (const name of variables) if (!groups.includes(name)) throw errors.badRequest(`Group "${name}" in URL template is not present in linkifier pattern.`);
  }
  const urlVariables = templateVariables(urlTemplate)!;
  for (const group of groups) if (!urlVariables.includes(group)) throw errors.badRequest(`Group "${group}" in linkifier pattern is not present in URL template.`);
  if (reverseTemplate === null || reverseTemplate === '') return null;
  const reverse = reverseVariables(reverseTemplate);
  if (!reverse) throw errors.badRequest('Invalid reverse linkifier template.');
  for (const name of reverse) if (!groups.includes(name)) throw errors.badRequest(`Group "${name}" in reverse linkifier template is not present in linkifier pattern.`);
  if (!roundTrips(regex, pattern, reverseTemplate, reverse)) throw errors.badRequest('Reverse linkifier template does not give text that the linkifier pattern matches.');
  return reverseTemplate;
}

/** A linkifier as the API shows it. */
export const linkifierView = (record: LinkifierRecord) => ({
  id: record.id,
  pattern: record.pattern,
  url_template: record.urlTemplate,
  ...(record.reverseTemplate === null ? {} : { reverse_template: record.reverseTemplate }),
  ...(record.alternativeUrlTemplates.length === 0 ? {} : { alternative_url_templates: record.alternativeUrlTemplates }),
});
