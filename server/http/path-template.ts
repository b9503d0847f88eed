/**
 * An OpenAPI path template (`/v1/models/{model}`) as a pattern for request paths: each `{parameter}` is
 * one segment, captured in order; the rest must be there as written.
 */
export function pathTemplatePattern(template: string): RegExp {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${template.split(/\{[^}]+\}/).map(literal).join("([^/]+)")}$`);
}

/** The template's parameter names, in the order the pattern captures them. */
export const pathTemplateParams = (template: string) => [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
