/** The transcript OpenAI's `completed` event carries, after the deltas already sent of it. */
import { wordsOfText } from "./stabilise";

/** A word as compared between passes: case and punctuation aside ("Clear." is "clear"). */
const comparable = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/**
 * The transcript `completed` carries when `delivered` was already sent as deltas, and the last delta
 * (`rest`: what follows `delivered`, "" when nothing does). Deltas cannot be taken back, so the
 * transcript always begins with them: when the final pass's text begins with what was sent, it is that
 * text as it is (the rest may go on inside a word: "mark" + "s, well"); when it rewrote a sent word, the
 * sent words stand for the final's words they align with (the prefix of the final at the least word
 * edit distance, case and punctuation aside; the longer prefix on a tie), and the final's words after
 * that prefix follow.
 */
export function completeTranscript(delivered: string, finalText: string): { transcript: string; rest: string } {
  const final = finalText.trim();
  if (!delivered) return { transcript: final, rest: final };
  if (final.startsWith(delivered)) {
    return { transcript: final, rest: final.slice(delivered.length) };
  }
  const sent = wordsOfText(delivered).map(comparable);
  const finalWords = wordsOfText(final);
  const said = finalWords.map(comparable);
  // distance[j]: word edit distance between the sent words and the final's first j words (one row at a time).
  let distance = Array.from({ length: said.length + 1 }, (_, j) => j);
  for (let i = 1; i <= sent.length; i++) {
    const next = [i];
    for (let j = 1; j <= said.length; j++) next[j] = Math.min(distance[j]! + 1, next[j - 1]! + 1, distance[j - 1]! + (sent[i - 1] === said[j - 1] ? 0 : 1));
    distance = next;
  }
  let aligned = 0;
  for (let j = 1; j <= said.length; j++) if (distance[j]! <= distance[aligned]!) aligned = j;
  const tail = finalWords.slice(aligned).join(" ");
  const rest = tail ? ` ${tail}` : "";
  return { transcript: delivered + rest, rest };
}

