/** "1 row", "2 rows", "1 person", "3 people": a count with its noun in the right number. */
export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
