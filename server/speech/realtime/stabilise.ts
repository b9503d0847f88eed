/** Partial stabilisation: which words of a growing utterance's partial passes are settled. */

/** The words of a pass's text, as passes (and the deltas sent of them) are compared. */
export const wordsOfText = (text: string) => text.trim().split(/\s+/).filter(Boolean);

/**
 * LocalAgreement-2: the words on which this pass and the previous one agree (their common prefix)
 * become stable, and stable words never change again; the rest of this pass is the unstable tail.
 */
export function stabilisePartial(stableWords: readonly string[], previousWords: readonly string[] | null, words: readonly string[]) {
  let stable = [...stableWords];
  if (previousWords) {
    let agreed = 0;
    while (agreed < words.length && agreed < previousWords.length && words[agreed] === previousWords[agreed]) agreed++;
    if (agreed > stable.length) stable = [...stable, ...words.slice(stable.length, agreed)];
  }
  // The unstable tail is what this pass says after the stable words; where it disagrees with them
  // inside the stable span, the stable words win (they were already shown as settled).
  return { stable, unstable: words.slice(stable.length) };
}
