import { readStoredDraft, writeStoredDraft } from "@/lib/draft-storage";
import type { EditorDocument } from "./editor-state";

/**
 * The template editor's unsaved work, kept in this browser's localStorage (per user and template) so
 * that a reload, a crash or a closed tab loses nothing; cleared once the server has it.
 */
export interface EditorDraft {
  /** The server's version (updated_at, ISO) the changes were made to: no clock comparison across machines. */
  basedOn: string;
  /** When the draft was last changed (ISO), to tell the teacher. */
  editedAt: string;
  doc: EditorDocument;
}

/** A server version as the draft stores it. */
export const versionOf = (updatedAt: Date | string) => new Date(updatedAt).toISOString();

const storageKey = (userId: string, templateId: string) => `markbook:template-draft:${userId}:${templateId}`;

/**
 * The stored draft worth offering: made to the version the server still has (so newer than it) and
 * different from it. Any other draft is stale (the template was saved since, here or elsewhere) and
 * is removed.
 */
export function loadEditorDraft(userId: string, templateId: string, serverVersion: string, serverDoc: EditorDocument): EditorDraft | null {
  const draft = readStoredDraft<EditorDraft>("local", storageKey(userId, templateId));
  if (!draft?.doc || typeof draft.editedAt !== "string") return null;
  if (draft.basedOn === serverVersion && JSON.stringify(draft.doc) !== JSON.stringify(serverDoc)) return draft;
  writeStoredDraft("local", storageKey(userId, templateId), null);
  return null;
}

/** Keeps the unsaved document made to the server's `version`, or with null forgets it (saved, or discarded). */
export function storeEditorDraft(userId: string, templateId: string, doc: EditorDocument | null, version = ""): void {
  const draft: EditorDraft | null = doc === null ? null : { basedOn: version, editedAt: new Date().toISOString(), doc };
  writeStoredDraft("local", storageKey(userId, templateId), draft);
}

const counted = (count: number, noun: string, change: string) => (count ? [`${count} ${noun}${count === 1 ? "" : "s"} ${change}`] : []);

function changedById<Item extends { id: string }>(before: Item[], after: Item[]) {
  const old = new Map(before.map((item) => [item.id, JSON.stringify(item)]));
  const now = new Set(after.map((item) => item.id));
  return {
    added: after.filter((item) => !old.has(item.id)).length,
    removed: before.filter((item) => !now.has(item.id)).length,
    changed: after.filter((item) => old.has(item.id) && old.get(item.id) !== JSON.stringify(item)).length,
  };
}

/** What differs from the saved template, as a teacher reads it: "2 questions added, 1 area changed, the title changed". */
export function describeChanges(saved: EditorDocument, doc: EditorDocument): string {
  const questions = changedById(saved.questions, doc.questions);
  const areas = changedById(saved.areas, doc.areas);
  const details = (["title", "subject", "status"] as const).filter((field) => saved[field] !== doc[field]);
  const parts = [
    ...counted(questions.added, "question", "added"),
    ...counted(questions.changed, "question", "changed"),
    ...counted(questions.removed, "question", "deleted"),
    ...counted(areas.added, "area", "drawn"),
    ...counted(areas.changed, "area", "moved or changed"),
    ...counted(areas.removed, "area", "deleted"),
    ...(details.length ? [`the ${details.join(" and ")} changed`] : []),
    ...(JSON.stringify(saved.name_box ?? null) !== JSON.stringify(doc.name_box ?? null) ? [doc.name_box ? "the name box drawn" : "the name box removed"] : []),
  ];
  return parts.length ? parts.join(", ") : "the order of the questions changed";
}
