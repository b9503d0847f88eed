/**
 * The demo school's catalogue paper, a 4-page mock exam: its data (data.ts) and its PDF
 * (pdf.ts), kept apart so that the questions read without the drawing. Importers use this file.
 */
export { type DemoPart, type DemoQuestion, type MarkPoint, demoPaper, demoPaperQuestions, demoPaperTotalMarks } from "./data";
export { type DrawnArea, type DrawnBoundary, type GeneratedPaper, generateDemoPaper } from "./pdf";
