/*
 * The prompt a dictated comment is transcribed with: the words the marker is likely to say that Whisper
 * would otherwise misspell (the question's mark scheme and rubric, the students' names). Pure; no React.
 * Tests: tests/marking-dictation-prompt.test.ts.
 */

/**
 * The engine keeps a prompt's last 223 tokens (about 800 characters of English; names cost more), and
 * the prompt travels in the socket's URL: longer would only be cut. Well under the API's 4000.
 */
export const DICTATION_PROMPT_MAX_CHARACTERS = 800;

export interface DictationPromptInput {
  /** The current question's mark scheme, as the marking screen shows it (MarkScheme.tsx). */
  markScheme: ({ type: string } & Record<string, unknown>) | null;
  /** The current question's rubric items. */
  rubricItems: readonly { text: string }[];
  /** The name of the script being marked; null when unknown. */
  studentName: string | null;
  /** The names the batch's queue already lists (the class). */
  classNames: readonly (string | null)[];
  /** An anonymous batch: no name goes into the prompt, whatever the caller has. */
  anonymous: boolean;
}

/** The mark scheme's words: its answer, its points' texts, and any other text it holds. */
function markSchemeTexts(scheme: DictationPromptInput["markScheme"]): string[] {
  if (!scheme) return [];
  const texts: string[] = [];
  for (const [key, value] of Object.entries(scheme)) {
    if (key === "type") continue;
    if (typeof value === "string" || (key === "answer" && typeof value === "number")) texts.push(String(value));
    else if (Array.isArray(value)) {
      for (const entry of value as unknown[]) {
        if (typeof entry === "string") texts.push(entry);
        else if (entry && typeof entry === "object" && typeof (entry as { text?: unknown }).text === "string") texts.push((entry as { text: string }).text);
      }
    }
  }
  return texts;
}

const clean = (text: string) => text.replace(/\s+/g, " ").trim();

/** The longest start of `text` within `room` characters, cut at a word boundary. */
function cut(text: string, room: number): string {
  if (text.length <= room) return text;
  const start = text.slice(0, room + 1);
  const space = start.lastIndexOf(" ");
  return (space > 0 ? start.slice(0, space) : text.slice(0, room)).replace(/[\s,;.:]+$/, "");
}

/**
 * "Class: …. Mark scheme: …. Rubric: …. Student: …." within `maxCharacters`. What matters most is kept
 * first and written last (the engine keeps the end of a long prompt): the student being marked, then
 * the rubric, the mark scheme, and the rest of the class. Empty when there is nothing to say.
 */
export function dictationPrompt(input: DictationPromptInput, maxCharacters = DICTATION_PROMPT_MAX_CHARACTERS): string {
  const current = input.anonymous || !input.studentName ? null : clean(input.studentName);
  const byPriority = [
    { label: "Student", texts: current ? [current] : [] },
    { label: "Rubric", texts: input.rubricItems.map((item) => item.text) },
    { label: "Mark scheme", texts: markSchemeTexts(input.markScheme) },
    { label: "Class", texts: input.anonymous ? [] : input.classNames.filter((name): name is string => Boolean(name)) },
  ];
  const seen = new Set<string>();
  const chosen: { label: string; texts: string[] }[] = [];
  let used = 0;
  fill: for (const { label, texts } of byPriority) {
    const section = { label, texts: [] as string[] };
    for (const raw of texts) {
      const text = clean(raw);
      if (!text || seen.has(text.toLowerCase())) continue;
      // "Label: " and "." for a section's first text, ", " before each other; " " between sections.
      const overhead = section.texts.length === 0 ? label.length + 3 + (chosen.length > 0 ? 1 : 0) : 2;
      const room = maxCharacters - used - overhead;
      const fitted = cut(text, room);
      if (!fitted || room <= 0) break fill;
      seen.add(text.toLowerCase());
      if (section.texts.length === 0) chosen.push(section);
      section.texts.push(fitted);
      used += overhead + fitted.length;
      if (fitted !== text) break fill; // the budget is spent
    }
  }
  return chosen
    .reverse()
    .map((section) => `${section.label}: ${section.texts.join(", ")}.`)
    .join(" ");
}
