/**
 * Each text token's log-probability as OpenAI's `logprobs` entries give it: the token's text, its
 * log-probability, and its UTF-8 bytes. Whisper's tokenizer is byte-level BPE: a vocabulary entry
 * spells its bytes with GPT-2's printable stand-ins (a space is "Ġ"), so one token may hold part of a
 * character. Its bytes are exact; its text is those bytes decoded, with U+FFFD for a partial character,
 * as OpenAI's own entries show it.
 */
import type { TokenLogprob } from "../engine-protocol";

/**
 * GPT-2's table from a vocabulary character to the byte it stands for. The printable Latin-1 bytes stand
 * for themselves, and the other 68 bytes take the characters from U+0100 on, in byte order.
 */
const BYTE_OF_CHARACTER = (() => {
  const printable = (byte: number) => (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
  const table = new Map<string, number>();
  let next = 0x100;
  for (let byte = 0; byte < 256; byte++) table.set(String.fromCodePoint(printable(byte) ? byte : next++), byte);
  return table;
})();

interface VocabularyTokenizer {
  get_vocab(): Map<string, number> | Record<string, number>;
}

/** Each model's vocabulary entries by id, built once. */
const piecesOf = new WeakMap<object, string[]>();
function pieces(tokenizer: VocabularyTokenizer): string[] {
  let byId = piecesOf.get(tokenizer);
  if (!byId) {
    const vocabulary = tokenizer.get_vocab();
    byId = [];
    for (const [piece, id] of vocabulary instanceof Map ? vocabulary : Object.entries(vocabulary)) byId[id] = piece;
    piecesOf.set(tokenizer, byId);
  }
  return byId;
}

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const utf8Bytes = new TextEncoder();

/** The entries of these text tokens (ids below <|endoftext|>), in order. */
export function tokenLogprobs(tokenizer: VocabularyTokenizer, tokens: readonly { id: number; logprob: number }[]): TokenLogprob[] {
  const byId = pieces(tokenizer);
  return tokens.map(({ id, logprob }) => {
    const piece = byId[id] ?? "";
    const bytes = [...piece].map((character) => BYTE_OF_CHARACTER.get(character));
    // A piece spelt otherwise (an added token) is its own text.
    const known = bytes.every((byte): byte is number => byte !== undefined) ? bytes : [...utf8Bytes.encode(piece)];
    return { token: utf8.decode(Uint8Array.from(known)), logprob, bytes: known };
  });
}
