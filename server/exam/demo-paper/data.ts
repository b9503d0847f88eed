/**
 * The demo school's catalogue paper as data: what it is, its questions and parts, their marks, mark
 * points and final answers, and the room each answer is given. pdf.ts draws it; the seed
 * writes its template from it.
 */

export const demoPaper = {
  id: "NFA-MATH-2026-P1",
  examCode: "NFA-MATH-P1-JUN26",
  title: "GCSE Mathematics Paper 1 (Non-calculator) Higher Tier, June 2026 mock",
  subject: "Mathematics",
  board: "Northfield Assessment Board",
  specification: "NAB-GCSE-MATH-2025",
} as const;

interface MarkPoint {
  text: string;
  marks: number;
}

export interface Answer {
  /** Printed before the answer line, e.g. "x =". */
  prefix: string;
  suffix?: string;
  /** Height of the working space in points, answer line included. */
  height: number;
}

/** A multiple-choice answer: the options printed beside tick boxes A, B, C … inside the answer area, and the right box. */
export interface Choices {
  options: string[];
  correct: string[];
}

export interface DemoPart {
  label: string;
  /** How the part is numbered on the paper, e.g. "(a)". */
  printed: string;
  text: string[];
  marks: number;
  answer: Answer;
  points: MarkPoint[];
  finalAnswer: string;
  specRef: string;
  startsNewPage?: boolean;
  /** A multiple-choice question: its boxes are printed (in place of working space) and read from the scan. */
  choices?: Choices;
}

export interface DemoQuestion {
  label: string;
  text: string[];
  /** The question's figure, drawn after its text. */
  diagram?: "right-triangle";
  specRef?: string;
  /** A container's parts; a leaf question has `leaf` instead. */
  parts?: DemoPart[];
  leaf?: Omit<DemoPart, "label" | "printed" | "text" | "startsNewPage">;
  startsNewPage?: boolean;
}

// The paper. Text is printed with a standard PDF font (WinAnsi), hence "-" rather than a minus sign.
export const demoPaperQuestions: DemoQuestion[] = [
  {
    label: "1",
    text: [],
    specRef: "NAB-GCSE-MATH-2025/A",
    parts: [
      {
        label: "1a",
        printed: "(a)",
        text: ["Solve  3x + 7 = 22"],
        marks: 2,
        answer: { prefix: "x =", height: 96 },
        points: [
          { text: "M1: 3x = 15, or an equivalent first step", marks: 1 },
          { text: "A1: x = 5", marks: 1 },
        ],
        finalAnswer: "5",
        specRef: "NAB-GCSE-MATH-2025/A17",
      },
      {
        label: "1b",
        printed: "(b)",
        text: ["Expand and simplify  (x + 3)(x - 5)"],
        marks: 2,
        answer: { prefix: "", height: 96 },
        points: [
          { text: "M1: x² - 5x + 3x - 15, at least three terms correct", marks: 1 },
          { text: "A1: x² - 2x - 15", marks: 1 },
        ],
        finalAnswer: "x² - 2x - 15",
        specRef: "NAB-GCSE-MATH-2025/A4",
      },
    ],
  },
  {
    label: "2",
    text: [
      "A school has 560 students.",
      "3/8 of the students walk to school.",
      "40% of the other students come to school by bus.",
      "How many students come to school by bus?",
    ],
    leaf: {
      marks: 3,
      answer: { prefix: "", suffix: "students", height: 150 },
      points: [
        { text: "M1: 560 × 3/8 = 210 walk", marks: 1 },
        { text: "M1: (560 - 210) × 0.4, or 350 × 40/100", marks: 1 },
        { text: "A1: 140", marks: 1 },
      ],
      finalAnswer: "140",
      specRef: "NAB-GCSE-MATH-2025/R9",
    },
  },
  {
    label: "3",
    startsNewPage: true,
    text: [
      "The diagram shows a right-angled triangle ABC.",
      "AB = 6 cm, BC = 8 cm and angle ABC = 90°.",
      "The diagram is not drawn accurately.",
    ],
    diagram: "right-triangle",
    specRef: "NAB-GCSE-MATH-2025/G",
    parts: [
      {
        label: "3a",
        printed: "(a)",
        text: ["Work out the length of AC."],
        marks: 2,
        answer: { prefix: "AC =", suffix: "cm", height: 110 },
        points: [
          { text: "M1: 6² + 8² = 100, or √(36 + 64)", marks: 1 },
          { text: "A1: 10", marks: 1 },
        ],
        finalAnswer: "10",
        specRef: "NAB-GCSE-MATH-2025/G20",
      },
      {
        label: "3b",
        printed: "(b)",
        text: ["Work out the size of angle ACB.", "Give your answer to 1 decimal place."],
        marks: 3,
        answer: { prefix: "", suffix: "degrees", height: 130 },
        points: [
          { text: "M1: tan ACB = 6/8, or a correct ratio with AC = 10", marks: 1 },
          { text: "M1: ACB = tan⁻¹(0.75)", marks: 1 },
          { text: "A1: 36.9", marks: 1 },
        ],
        finalAnswer: "36.9",
        specRef: "NAB-GCSE-MATH-2025/G21",
      },
      {
        label: "3c",
        printed: "(c)",
        startsNewPage: true,
        text: ["Triangle ABC is enlarged by scale factor 2.5", "Work out the area of the enlarged triangle."],
        marks: 3,
        answer: { prefix: "", suffix: "cm²", height: 170 },
        points: [
          { text: "M1: area of ABC = ½ × 6 × 8 = 24", marks: 1 },
          { text: "M1: 24 × 2.5², or ½ × 15 × 20", marks: 1 },
          { text: "A1: 150", marks: 1 },
        ],
        finalAnswer: "150",
        specRef: "NAB-GCSE-MATH-2025/G19",
      },
    ],
  },
  {
    label: "4",
    text: ["Which one of these numbers is a prime number?", "Tick one box."],
    leaf: {
      marks: 1,
      answer: { prefix: "", height: 44 },
      choices: { options: ["21", "27", "29", "33"], correct: ["C"] },
      points: [{ text: "B1: C (29) ticked, and no other box", marks: 1 }],
      finalAnswer: "C",
      specRef: "NAB-GCSE-MATH-2025/N4",
    },
  },
];

export const demoPaperTotalMarks = demoPaperQuestions.reduce(
  (total, question) => total + (question.leaf?.marks ?? 0) + (question.parts ?? []).reduce((sum, part) => sum + part.marks, 0),
  0,
);

