/**
 * The demo school's catalogue paper, a 4-page mock exam: its data (data.ts) and its PDF
 * (pdf.ts), kept apart so that the questions read without the drawing. Importers use this file.
 */
export {    demoPaper, demoPaperQuestions, demoPaperTotalMarks } from "./data";
export {   type GeneratedPaper, generateDemoPaper } from "./pdf";
