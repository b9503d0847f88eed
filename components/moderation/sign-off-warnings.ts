/** What a sign-off would leave undone (the moderation state's before_sign_off). */
export type SignOffWarnings = { unmarked_scripts: number; unreconciled_differences: number; unsecond_marked_scripts: number };

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The sign-off dialog's warnings, one sentence each; empty when a sign-off leaves nothing undone. */
export function signOffWarnings(warnings: SignOffWarnings): string[] {
  return [
    warnings.unmarked_scripts > 0 ? `${count(warnings.unmarked_scripts, "script is", "scripts are")} not completely marked.` : null,
    warnings.unreconciled_differences > 0 ? `${count(warnings.unreconciled_differences, "difference is", "differences are")} not reconciled.` : null,
    warnings.unsecond_marked_scripts > 0
      ? `${count(warnings.unsecond_marked_scripts, "script", "scripts")} of the sample ${warnings.unsecond_marked_scripts === 1 ? "is" : "are"} not second-marked.`
      : null,
  ].filter((line) => line !== null);
}
