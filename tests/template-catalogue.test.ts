import crypto from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import { GET as getTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { demoPaper, demoPaperQuestions, demoPaperTotalMarks, generateDemoPaper } from "../server/exam/demo-paper";
import { asService } from "../server/db/rls";
import { examPapers, files } from "../server/db/schema";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createCataloguePaper } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

type Question = { id: string; parent_id: string | null; label: string; max_marks: number | null; spec_ref: string | null; is_container: boolean; mark_scheme: unknown; answer_type: string | null };

describeOnEachDatabase("templates from a catalogue paper", (database) => {
  let school: School;
  let otherSchool: School;
  let paperFileId: string;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const get = async (token: string, id: string) => callRest(getTemplate, { path: `/api/exam/templates/${id}`, token, params: { template_id: id } });

  const paperLabels = demoPaperQuestions.flatMap((question) => [question.label, ...(question.parts ?? []).map((part) => part.label)]);
  const leafTotal = (questions: Question[]) => questions.filter((q) => !q.is_container).reduce((sum, q) => sum + (q.max_marks ?? 0), 0);

  beforeAll(async () => {
    school = await createSchool(database().db, "Catalogue");
    otherSchool = await createSchool(database().db, "CatalogueElsewhere");
    // The demo catalogue paper as the seed writes it: a catalogue file (no institute) and its paper row.
    paperFileId = await asService(database().db, async (tx) => {
      const [file] = await tx
        .insert(files)
        .values({ bucket: "catalogue", storage_key: `exam-papers/${crypto.randomUUID()}.pdf`, content_type: "application/pdf", byte_size: 1, sha256: "0", page_count: 4 })
        .returning();
      await tx
        .insert(examPapers)
        .values({ id: demoPaper.id, exam_code: demoPaper.examCode, title: demoPaper.title, subject: demoPaper.subject, specification: demoPaper.specification, source_file_id: file!.id, page_count: 4 })
        .onConflictDoUpdate({ target: examPapers.id, set: { source_file_id: file!.id } });
      return file!.id;
    });
  });

  it("REST: over the paper's own PDF, the template comes with its questions, marks, spec points and areas, ready to mark", async () => {
    const created = await callRest(postTemplate, {
      method: "POST",
      path: "/api/exam/templates",
      token: school.teacher.token,
      body: { title: "From the catalogue", exam_id: demoPaper.id, source_file_id: paperFileId, page_count: 4 },
    });
    expect(created.status).toBe(201);
    const template = await created.json();
    expect(template).toMatchObject({ exam_code: demoPaper.examCode, status: "ready" });

    const full = await (await get(school.teacher.token, template.id)).json();
    const questions = full.questions as Question[];
    expect(questions.map((q) => q.label)).toEqual(paperLabels);
    expect(leafTotal(questions)).toBe(demoPaperTotalMarks);
    const byLabel = new Map(questions.map((q) => [q.label, q]));
    expect(byLabel.get("1")).toMatchObject({ is_container: true, parent_id: null, max_marks: 4 });
    expect(byLabel.get("1a")).toMatchObject({ parent_id: byLabel.get("1")!.id, max_marks: 2, spec_ref: "NAB-GCSE-MATH-2025/A17" });
    expect(byLabel.get("2")!.mark_scheme).toMatchObject({ type: "points", answer: "140" });
    // Question 4, multiple choice: ready to mark from the ticks (its boxes printed in its area, the right one in its scheme).
    expect(byLabel.get("4")).toMatchObject({ answer_type: "multiple_choice", max_marks: 1, mark_scheme: { type: "multiple_choice", correct: ["C"], allow_multiple: false } });
    const tickArea = full.response_areas.find((area: { question_id: string }) => area.question_id === byLabel.get("4")!.id);
    expect(tickArea.tick_boxes.map((box: { label: string; shape: string }) => `${box.label}:${box.shape}`)).toEqual(["A:square", "B:square", "C:square", "D:square"]);
    // Every markable part has an area on the pages to mark.
    const withAreas = new Set(full.response_areas.map((area: { question_id: string }) => area.question_id));
    for (const leaf of questions.filter((q) => !q.is_container)) expect(withAreas.has(leaf.id), `question ${leaf.label} has an area`).toBe(true);
    expect(full.boundaries.length).toBeGreaterThan(0);
    // The name box: the cover's Surname, Forename(s) and Candidate number boxes.
    expect(full.name_box).toEqual((await generateDemoPaper()).nameBox);
    expect(full.name_box).toMatchObject({ page: 1 });
  });

  it("tRPC: every template gets its own question ids; on another PDF the questions come without areas, as a draft", async () => {
    const first = await as(school.teacher).exam.templates.create({ title: "One", exam_id: demoPaper.id, source_file_id: paperFileId, page_count: 4 });
    const second = await as(school.otherTeacher).exam.templates.create({ title: "Two", exam_id: demoPaper.id, page_count: 6 });
    expect(second.status).toBe("draft");
    const one = await as(school.teacher).exam.templates.get({ template_id: first.id });
    const two = await as(school.otherTeacher).exam.templates.get({ template_id: second.id });
    expect(two.questions.map((q) => q.label)).toEqual(paperLabels);
    expect(two.response_areas).toEqual([]);
    // Over another PDF the multiple-choice question waits for its boxes: its type kept, its right answer said again once they are found.
    expect(two.questions.find((q) => q.label === "4")!.mark_scheme).toEqual({ type: "multiple_choice", correct: [], allow_multiple: false });
    expect(one.questions.find((q) => q.label === "4")!.mark_scheme).toEqual({ type: "multiple_choice", correct: ["C"], allow_multiple: false });
    expect(two.name_box).toBeNull();
    const ids = new Set(one.questions.map((q) => q.id));
    expect(two.questions.some((q) => ids.has(q.id))).toBe(false);
  });

  it("the catalogue says what each paper comes with; one without a shipped structure still gives an empty template, unreadable to another school", async () => {
    const bare = await createCataloguePaper(database().db);
    const { papers } = await as(school.teacher).exam.catalogue.list();
    expect(papers.find((paper) => paper.id === demoPaper.id)).toMatchObject({ question_count: 7, total_marks: demoPaperTotalMarks });
    expect(papers.find((paper) => paper.id === bare.id)).toMatchObject({ question_count: 0, total_marks: 0 });
    const template = await as(school.teacher).exam.templates.create({ title: "Bare", exam_id: bare.id });
    expect((await as(school.teacher).exam.templates.get({ template_id: template.id })).questions).toEqual([]);
    expect((await get(otherSchool.teacher.token, template.id)).status).toBe(404);
    await expect(as(otherSchool.teacher).exam.templates.get({ template_id: template.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
