import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import type { Db, Tx } from "../db/client";
import { asService, asUser } from "../db/rls";
import { examPapers, examQuestions, examResponseAreas, examTemplates, institutes } from "../db/schema";
import { AppError, notFound } from "../errors";
import { graphStore } from "./index";
import { GraphNodeOwnedError, GraphNodeTypeClashError, type GraphNodeInput, type GraphRelationshipInput, paperLabels, paperLinks } from "./port";

/**
 * Projection of one exam template into its school's curriculum graph database, where the
 * specification points it assesses live: a paper node keyed by exam_code, question and part nodes
 * keyed by question id, region nodes keyed by response-area id, the structural links, paper →
 * specification when the catalogue paper names one, and question/part → specification point from
 * spec_ref. A re-sync replaces the questions, parts and regions this template projected, and nothing of
 * another template: each of those nodes records its template (`projected_by`), the graph port never
 * lets another template's write change or remove it, and the paper node of a catalogue exam_code is
 * shared by every template on that paper (its properties and specification link follow from the
 * exam_code alone, so no template can change them for the others).
 */

export const graphSyncInput = z.object({ templateId: text(100) });

export const graphSyncOutput = z.object({
  exam_code: z.string(),
  questions: z.number().int(),
  parts: z.number().int(),
  regions: z.number().int(),
  assesses: z.number().int(),
  spec_linked: z.boolean(),
});
export type GraphSyncResult = z.infer<typeof graphSyncOutput>;


/** The paper key of a template without a catalogue code. */
export const syntheticExamCode = (templateId: string) => `template-${templateId}`;

/**
 * exam_code values of the synthetic form (`template-…`, any case) are reserved: typed as a template's
 * exam_code, one would put that template's questions on another template's own paper.
 */
export const isReservedExamCode = (code: string) => code.toLowerCase().startsWith("template-");

/**
 * POST /api/exam/templates/{id}/graph-sync: the owner runs the projection now and gets its counts.
 * 404 when the template is missing or not visible to the caller, 403 when visible but not theirs.
 */
export async function syncTemplateGraph(db: Db, userId: string, id: string): Promise<GraphSyncResult> {
  const templateId = recordId("Template").parse(id);
  const template = await asUser(db, userId, async (tx) => {
    const [row] = await tx
      .select({ owner_id: examTemplates.owner_id })
      .from(examTemplates)
      .where(eq(examTemplates.id, templateId));
    return row;
  });
  if (!template) throw notFound("Template");
  if (template.owner_id !== userId) throw new AppError("forbidden", "Only the template's owner can sync it to the graph");
  return projectTemplate(db, templateId);
}

/**
 * Projects the template as it is now. Reading the template and writing the graph run with service
 * rights: "writing graph projections" is a service-level exception named by the contract
 * (docs/spec/classroom-api.md "What the service does"), and the
 * callers (the owner's graph-sync, the owner's save) have checked access already.
 */
export async function projectTemplate(db: Db, templateId: string): Promise<GraphSyncResult> {
  const source = await asService(db, (tx) => readTemplateForProjection(tx, templateId));
  if (!source) throw notFound("Template");
  const projection = buildProjection(source);
  try {
    await graphStore(db).write(source.graphDatabase, async (writer) => {
      await writer.removePaperStructure({ paperKey: projection.examCode, owner: source.id, nodeKeys: projection.structureKeys });
      await writer.upsertNodes(projection.nodes);
      await writer.upsertRelationships(projection.relationships);
    });
  } catch (error) {
    // Question and area ids are the client's: one already projected by another template stays theirs.
    if (error instanceof GraphNodeOwnedError) {
      throw new AppError(
        "conflict",
        `${error.label} ${error.key} is part of another template's projection in the graph: give it a new id`,
      );
    }
    // The same: an id the client chose is already another kind of node (a response area over a question).
    if (error instanceof GraphNodeTypeClashError) {
      const other = error.existingLabel ? `a ${nodeTypeInWords(error.existingLabel)}` : "another kind of node";
      throw new AppError(
        "conflict",
        `${upperFirst(nodeTypeInWords(error.label))} ${error.key} has the id of ${other} in the school's curriculum graph: give it a new id`,
      );
    }
    throw error;
  }
  return projection.result;
}

/** A graph label as a teacher names the thing: "Region" is a response area, "SpecificationPoint" a specification point. */
const nodeTypeInWords = (label: string) => (label === paperLabels.region ? "response area" : label.replace(/(?<=[a-z])(?=[A-Z])/g, " ").toLowerCase());
const upperFirst = (words: string) => words.charAt(0).toUpperCase() + words.slice(1);

type ProjectionSource = NonNullable<Awaited<ReturnType<typeof readTemplateForProjection>>>;

async function readTemplateForProjection(tx: Tx, templateId: string) {
  const [template] = await tx
    .select({
      id: examTemplates.id,
      title: examTemplates.title,
      subject: examTemplates.subject,
      exam_code: examTemplates.exam_code,
      page_count: examTemplates.page_count,
      // The catalogue paper of the exam_code (not of the template's exam_id): what the shared paper
      // node says depends on the exam_code alone.
      catalogue: { title: examPapers.title, subject: examPapers.subject, page_count: examPapers.page_count, specification: examPapers.specification },
      graphDatabase: institutes.curriculum_db_name,
    })
    .from(examTemplates)
    .innerJoin(institutes, eq(institutes.id, examTemplates.institute_id))
    .leftJoin(examPapers, eq(examPapers.exam_code, examTemplates.exam_code))
    .where(eq(examTemplates.id, templateId));
  if (!template) return null;
  const questions = await tx
    .select({
      id: examQuestions.id,
      parent_id: examQuestions.parent_id,
      label: examQuestions.label,
      order: examQuestions.order,
      max_marks: examQuestions.max_marks,
      answer_type: examQuestions.answer_type,
      spec_ref: examQuestions.spec_ref,
      is_container: examQuestions.is_container,
    })
    .from(examQuestions)
    .where(eq(examQuestions.template_id, templateId))
    .orderBy(asc(examQuestions.order), asc(examQuestions.id));
  const areas = await tx
    .select({
      id: examResponseAreas.id,
      question_id: examResponseAreas.question_id,
      page: examResponseAreas.page,
      kind: examResponseAreas.kind,
      response_form: examResponseAreas.response_form,
    })
    .from(examResponseAreas)
    .where(eq(examResponseAreas.template_id, templateId))
    .orderBy(asc(examResponseAreas.page), asc(examResponseAreas.id));
  return { ...template, questions, areas };
}

function buildProjection(source: ProjectionSource) {
  const typedCode = source.exam_code?.trim();
  // A reserved code (a row from before the rule) projects like no code: onto the template's own paper.
  const shared = Boolean(typedCode) && !isReservedExamCode(typedCode!);
  const examCode = shared ? typedCode! : syntheticExamCode(source.id);
  const catalogue = shared ? source.catalogue : null;
  const owner = source.id;
  const paper = { label: paperLabels.paper, key: examCode };
  const nodes: GraphNodeInput[] = [
    shared
      ? {
          // Shared by every template of this exam_code: only what the exam_code says (nulls clear what
          // projections before issue 14 wrote here).
          ...paper,
          properties: {
            exam_code: examCode,
            name: catalogue?.title ?? examCode,
            subject: catalogue?.subject ?? null,
            page_count: catalogue?.page_count ?? null,
            template_id: null,
            synthetic_code: false,
          },
        }
      : {
          ...paper,
          owner,
          properties: {
            exam_code: examCode,
            name: source.title,
            subject: source.subject,
            template_id: source.id,
            page_count: source.page_count,
            synthetic_code: true,
          },
        },
  ];
  const relationships: GraphRelationshipInput[] = [];

  const questionLabel = (question: { parent_id: string | null }) => (question.parent_id ? paperLabels.part : paperLabels.question);
  const byId = new Map(source.questions.map((question) => [question.id, question]));
  let assesses = 0;
  const specificationPoints = new Set<string>();
  for (const question of source.questions) {
    const node = { label: questionLabel(question), key: question.id };
    nodes.push({
      ...node,
      owner,
      properties: {
        name: question.label,
        label: question.label,
        order: question.order,
        max_marks: question.max_marks === null ? null : Number(question.max_marks),
        answer_type: question.answer_type,
        is_container: question.is_container,
        spec_ref: question.spec_ref,
      },
    });
    const parent = question.parent_id ? byId.get(question.parent_id) : undefined;
    relationships.push(
      parent
        ? { from: { label: questionLabel(parent), key: parent.id }, type: paperLinks.hasPart, to: node }
        : { from: paper, type: paperLinks.hasQuestion, to: node },
    );
    const specRef = question.spec_ref?.trim();
    if (specRef) {
      specificationPoints.add(specRef);
      relationships.push({ from: node, type: paperLinks.assesses, to: { label: paperLabels.specificationPoint, key: specRef } });
      assesses += 1;
    }
  }
  // A point not (yet) in the curriculum is created bare, by its code, so that no link is lost; a
  // curriculum import merges into it later. Properties given here are only the code: existing
  // points keep theirs.
  for (const code of specificationPoints) nodes.push({ label: paperLabels.specificationPoint, key: code, properties: { code } });

  const specification = catalogue?.specification?.trim();
  if (specification) {
    nodes.push({ label: paperLabels.specification, key: specification, properties: { code: specification } });
    relationships.push({ from: paper, type: paperLinks.hasSpecification, to: { label: paperLabels.specification, key: specification } });
  }

  for (const area of source.areas) {
    const node = { label: paperLabels.region, key: area.id };
    nodes.push({
      ...node,
      owner,
      properties: { name: `Page ${area.page} ${area.kind}`, page: area.page, order: area.page, kind: area.kind, response_form: area.response_form },
    });
    const question = byId.get(area.question_id)!;
    relationships.push({ from: { label: questionLabel(question), key: question.id }, type: paperLinks.hasRegion, to: node });
  }

  return {
    examCode,
    nodes,
    relationships,
    structureKeys: [...source.questions.map((question) => question.id), ...source.areas.map((area) => area.id)],
    result: {
      exam_code: examCode,
      questions: source.questions.filter((question) => !question.parent_id).length,
      parts: source.questions.filter((question) => question.parent_id).length,
      regions: source.areas.length,
      assesses,
      spec_linked: Boolean(specification),
    } satisfies GraphSyncResult,
  };
}
