import crypto from "node:crypto";
import { POST as scansRoute } from "../../app/api/exam/batches/[batch_id]/scans/route";
import type { Db } from "../../server/db/client";
import { asService } from "../../server/db/rls";
import { examPapers } from "../../server/db/schema";
import { createClass } from "../../server/classroom/classes";
import { enrollStudent } from "../../server/classroom/enrollments";
import { createUser } from "../../server/identity/users";
import type { School } from "./fixtures";

type Handler<Params> = (request: Request, route?: { params: Promise<Params> }) => Promise<Response>;

/** Calls a REST route handler with a real Request, as Next would. */
export async function callRest<Params = Record<string, never>>(
  handler: Handler<Params>,
  options: { method?: string; path?: string; token?: string; body?: unknown; params?: Params; headers?: HeadersInit },
): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    headers.set("content-type", "application/json");
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  const request = new Request(`http://localhost${options.path ?? "/"}`, { method: options.method ?? "GET", headers, body });
  return handler(request, options.params ? { params: Promise.resolve(options.params) } : undefined);
}

/** A catalogue paper every school may use. */
export async function createCataloguePaper(db: Db) {
  const tag = crypto.randomBytes(4).toString("hex");
  return asService(db, async (tx) => {
    const [paper] = await tx
      .insert(examPapers)
      .values({ id: `paper-${tag}`, exam_code: `8300/1H-${tag}`, title: "Mathematics Paper 1", subject: "Mathematics", specification: "8300" })
      .returning();
    return paper!;
  });
}

/** A class of the school with `count` active students (names sortable: Student 01, Student 02, …). */
export async function createClassWithStudents(db: Db, school: School, count: number) {
  const tag = crypto.randomBytes(4).toString("hex");
  return asService(db, async (tx) => {
    const created = await createClass(tx, { instituteId: school.institute.id, name: `Class ${tag}`, teacherId: school.teacher.id });
    const students = [];
    for (let index = 1; index <= count; index++) {
      const student = await createUser(tx, {
        email: `pupil${index}.${tag}@example.org`,
        fullName: `Student ${String(index).padStart(2, "0")} ${tag}`,
        instituteId: school.institute.id,
        role: "student",
      });
      await enrollStudent(tx, { classId: created.id, studentId: student.id });
      students.push(student);
    }
    return { class: created, students };
  });
}

/**
 * A small canvas: Q1 (container) with parts 1a (3 marks) and 1b (2 marks), and Q2 (5 marks), with a
 * response area and a boundary per leaf. Fresh client UUIDs on every call.
 */
export function sampleCanvas() {
  const q1 = crypto.randomUUID();
  const q1a = crypto.randomUUID();
  const q1b = crypto.randomUUID();
  const q2 = crypto.randomUUID();
  const questions = [
    { id: q1, parent_id: null, label: "1", order: 0, max_marks: 5, answer_type: null, mark_scheme: null, spec_ref: "8300.N1", is_container: true },
    { id: q1a, parent_id: q1, label: "1a", order: 1, max_marks: 3, answer_type: "numeric", mark_scheme: { type: "points", points: ["M1", "A1"] }, spec_ref: null, is_container: false },
    { id: q1b, parent_id: q1, label: "1b", order: 2, max_marks: 2, answer_type: "text", mark_scheme: { type: "levels" }, spec_ref: null, is_container: false },
    { id: q2, parent_id: null, label: "2", order: 3, max_marks: 5, answer_type: "numeric", mark_scheme: null, spec_ref: "8300.A2", is_container: false },
  ];
  const response_areas = [q1a, q1b, q2].map((questionId, index) => ({
    id: crypto.randomUUID(),
    question_id: questionId,
    page: index + 1,
    kind: "response" as const,
    response_form: "box",
    x: 0.1,
    y: 0.2,
    width: 0.5,
    height: 0.25,
  }));
  const boundaries = [q1, q2].map((questionId, index) => ({ id: crypto.randomUUID(), question_id: questionId, page: index + 1, top: 0.1, bottom: 0.9 }));
  return { ids: { q1, q1a, q1b, q2 }, questions, response_areas, boundaries };
}

/** A small PDF-looking file: the signature and a few bytes. */
export function pdfBytes(size = 2048): Uint8Array {
  const bytes = Buffer.alloc(size, 0x20);
  bytes.write("%PDF-1.7\n");
  return bytes;
}

/** Values and file names may be raw bytes, for the fuzz tests' invalid UTF-8. */
type FormPart = { name: string; value: string | Uint8Array } | { name: string; filename: string | Uint8Array; contentType?: string; bytes: Uint8Array };

const bytesOf = (value: string | Uint8Array) => (typeof value === "string" ? Buffer.from(value) : Buffer.from(value));

/** A multipart/form-data body written by hand, so tests control every header. */
export function multipartBody(parts: FormPart[], boundary = `----markbook${crypto.randomBytes(8).toString("hex")}`) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ("value" in part) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n\r\n`), bytesOf(part.value), Buffer.from("\r\n"));
    } else {
      const type = part.contentType === undefined ? "application/pdf" : part.contentType;
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"; filename="`), bytesOf(part.filename));
      chunks.push(Buffer.from(`"\r\n${type ? `Content-Type: ${type}\r\n` : ""}\r\n`));
      chunks.push(Buffer.from(part.bytes));
      chunks.push(Buffer.from("\r\n"));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /api/exam/batches/{id}/scans: one scan uploaded on its own with these form fields (none: an unmatched scan); the route's answer. */
export function uploadScan(token: string, batchId: string, scan: Uint8Array, fields: FormPart[] = [], filename = "scan.pdf") {
  const form = multipartBody([...fields, { name: "file", filename, bytes: scan }]);
  return scansRoute(
    new Request(`http://localhost/api/exam/batches/${batchId}/scans`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": form.contentType },
      body: form.body,
    }),
    { params: Promise.resolve({ batch_id: batchId }) },
  );
}

/** One scan uploaded on its own, matched in order (the route's answer). */
export const uploadScanInOrder = (token: string, batchId: string, scan: Uint8Array, filename = "scan.pdf") =>
  uploadScan(token, batchId, scan, [{ name: "matching_method", value: "ordered" }], filename);
