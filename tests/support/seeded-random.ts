/**
 * A small seeded pseudo-random source (mulberry32): fast, and the same sequence for the same seed, so a
 * generated pile, answer sheet or hostile file that fails a test can be made again from its seed.
 * Numbers from 0 (inclusive) to 1 (exclusive), in steps of 2⁻³².
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
