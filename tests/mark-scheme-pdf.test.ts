import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as readPdfRoute } from "../app/api/exam/templates/[template_id]/mark-scheme/read-pdf/route";
import { workerImaging } from "../server/exam/intake/imaging";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { readMarkSchemePdf } from "../server/exam/mark-scheme/read-scheme-pdf";
import { readSchemeLines } from "../server/exam/mark-scheme/read-scheme";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { multipartBody, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { hostileFiles, plainPage } from "./support/hostile-files";
import { markSchemePdf, paperParts } from "./support/mark-schemes";

const items = (lines: string[][], known: Set<string>) =>
  Object.fromEntries(readSchemeLines(lines, known).questions.map((question) => [question.label, question.items.map(({ text, points }) => ({ text, points }))]));

describe("a mark scheme's PDF (its table, read in the imaging worker)", () => {
  const imaging = workerImaging();

  it("reads every generated scheme's PDF table back equal to its truth", async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const parts = paperParts(seed);
      const scheme = await markSchemePdf(parts, seed);
      const known = new Set(parts.map((part) => part.label));
      const lines = seed % 3 === 0 ? await imaging.readMarkScheme(scheme.bytes) : await readMarkSchemePdf(scheme.bytes);
      expect(items(lines, known), `seed ${seed}:\n${scheme.text}`).toEqual(scheme.truth);
      expect(readSchemeLines(lines, known).warnings, `seed ${seed}`).toEqual([]);
    }
  });

  it("refuses every hostile file with a sentence, or reads it; the worker serves on", async () => {
    for (const file of await hostileFiles()) {
      const outcome = await imaging.readMarkScheme(file.bytes).then(
        (lines) => ({ lines }),
        (error: Error) => ({ message: error.message }),
      );
      if ("message" in outcome) {
        expect(outcome.message, file.name).toMatch(/^[A-Z][^\n]*[a-z.)]$/);
        expect(outcome.message, file.name).not.toMatch(/stopped unexpectedly|TypeError|undefined/);
      } else expect(Array.isArray(outcome.lines), file.name).toBe(true);
    }
    expect(await imaging.readMarkScheme(plainPage())).toEqual([["Page"]]);
    const scheme = await markSchemePdf(paperParts(3), 3);
    expect((await imaging.readMarkScheme(scheme.bytes)).length).toBeGreaterThan(3);
  }, 120_000);
});

describeOnEachDatabase("POST …/mark-scheme/read-pdf", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const post = (token: string, templateId: string, bytes: Uint8Array, filename = "scheme.pdf") => {
    const form = multipartBody([{ name: "file", filename, bytes }]);
    return readPdfRoute(
      new Request(`http://localhost/api/exam/templates/${templateId}/mark-scheme/read-pdf`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": form.contentType, "content-length": String(form.body.length) },
        body: form.body,
      }),
      { params: Promise.resolve({ template_id: templateId }) },
    );
  };

  beforeAll(async () => {
    setIntakeImaging(workerImaging());
    school = await createSchool(database().db, "SchemePdf");
    otherSchool = await createSchool(database().db, "SchemePdfElsewhere");
  });

  it("proposes the PDF's items per part of the template; another school's user gets 404; a file that is not a PDF 415", async () => {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: `Scheme PDF ${crypto.randomUUID().slice(0, 6)}`, page_count: 4 });
    await teacher.exam.templates.save({ template_id: template.id, body: sampleCanvas() });
    const scheme = await markSchemePdf(
      [
        { label: "1(a)", marks: 3 },
        { label: "1(b)", marks: 2 },
        { label: "2", marks: 5 },
      ],
      11,
    );
    const reply = await post(school.teacher.token, template.id, scheme.bytes);
    expect(reply.status).toBe(200);
    const proposal = (await reply.json()) as { parts: { label: string; items: { text: string; points: number }[] }[]; warnings: string[] };
    expect(proposal.parts.map((part) => [part.label, part.items.map(({ text, points }) => ({ text, points }))])).toEqual([
      ["1a", scheme.truth["1(a)"]],
      ["1b", scheme.truth["1(b)"]],
      ["2", scheme.truth["2"]],
    ]);
    expect(proposal.warnings).toEqual([]);
    for (const outsider of [otherSchool.teacher, otherSchool.admin]) expect((await post(outsider.token, template.id, scheme.bytes)).status).toBe(404);
    const notPdf = await post(school.teacher.token, template.id, new TextEncoder().encode("1 | x | B1"), "scheme.txt");
    expect([400, 415]).toContain(notPdf.status);
    expect(((await notPdf.json()) as { detail: string }).detail).toMatch(/PDF/);
  });
});
