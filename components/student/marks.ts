/** Marks as a person reads them: 3, 2.5, 0.25 (never 3.00). */
export const formatMarks = (value: number) => String(Math.round(value * 100) / 100);

/** "1 mark", "2.5 marks". */
export const marksInWords = (value: number) => `${formatMarks(value)} ${value === 1 ? "mark" : "marks"}`;
