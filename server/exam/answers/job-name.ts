/** The background job that reads a script's filed pages (read-job.ts), named apart so that reads may count its rows without loading it. */
export const READ_ANSWERS_JOB = "read-answer-areas";
