import { and, eq, sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { backgroundJobs } from "../server/db/schema";
import { runDueJobs } from "../server/jobs/run";
import { setMailer, smtpMailer } from "../server/notifications/mail";
import { studentNoticeJob } from "../server/notifications/student-notices";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { freePort } from "./support/free-port";
import { markedReleasedBatch } from "./support/release-fixtures";

interface Received {
  to: string[];
  data: string;
}

/**
 * Issue 35, item 7: with an SMTP server configured, a student is e-mailed when a review request of
 * theirs is answered (and, with release, when results are released); without one nothing is queued and
 * nothing fails. A real SMTP server (smtp-server, in this process) receives what nodemailer sends.
 */
describeOnEachDatabase("e-mails to students", (database) => {
  let school: School;
  let server: SMTPServer;
  let port: number;
  let refuse = false;
  const received: Received[] = [];
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const day = 24 * 60 * 60 * 1000;

  beforeAll(async () => {
    school = await createSchool(database().db, "Mail");
    port = await freePort();
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onRcptTo(_address, _session, callback) {
        callback(refuse ? Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }) : undefined);
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), data: Buffer.concat(chunks).toString("utf8") });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  });
  afterEach(() => {
    setMailer(null);
    refuse = false;
  });
  afterAll(async () => {
    setMailer(null);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const noticeJobs = (requestId: string) =>
    asService(database().db, (tx) =>
      tx
        .select()
        .from(backgroundJobs)
        .where(and(eq(backgroundJobs.kind, studentNoticeJob.name), sql`${backgroundJobs.payload} ->> 'request_id' = ${requestId}`)),
    );

  it("an answered review request e-mails its student where to read the answer, without the marks or the reply", async () => {
    setMailer(smtpMailer(`smtp://127.0.0.1:${port}`, "Markbook <markbook@school.example>"));
    const { canvas, student, script } = await markedReleasedBatch(database().db, school, { reviewsUntil: new Date(Date.now() + day) });
    const request = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q2, reason: "Please look again." });
    await as(school.teacher).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 4, reply: "Your graph earns the method mark." });
    expect(await noticeJobs(request.id)).toHaveLength(1);

    await runDueJobs(database().db, { kinds: [studentNoticeJob] });
    const mail = received.find((message) => message.to.includes(student.email));
    expect(mail?.data).toContain("Subject: Your review request for question 2 has been answered");
    expect(mail?.data).toContain("/my-work");
    expect(mail?.data).not.toMatch(/graph earns|\b4\b/);
    expect((await noticeJobs(request.id))[0]).toMatchObject({ state: "done" });
  });

  it("a release e-mails each student whose script it releases, once, in the same transaction", async () => {
    setMailer(smtpMailer(`smtp://127.0.0.1:${port}`, "Markbook <markbook@school.example>"));
    const { batch, student, classmate } = await markedReleasedBatch(database().db, school, { reviewsUntil: null, release: false });
    const owner = as(school.teacher);
    await expect(owner.exam.release.release({ batch_id: batch.id, scope: "complete", reviews_until: "2020-01-01T00:00:00Z" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await owner.exam.release.release({ batch_id: batch.id, scope: "all" });
    // Releasing again, with another scope, tells nobody twice.
    await owner.exam.release.release({ batch_id: batch.id, scope: "complete" });
    const released = await asService(database().db, (tx) =>
      tx
        .select({ payload: backgroundJobs.payload })
        .from(backgroundJobs)
        .where(and(eq(backgroundJobs.kind, studentNoticeJob.name), sql`${backgroundJobs.payload} ->> 'notice' = 'released'`, sql`${backgroundJobs.payload} ->> 'submission_id' in (select id::text from exam_submissions where batch_id = ${batch.id})`)),
    );
    expect(released).toHaveLength(2);
    await runDueJobs(database().db, { kinds: [studentNoticeJob] });
    for (const person of [student, classmate]) {
      const mail = received.filter((message) => message.to.includes(person.email));
      expect(mail).toHaveLength(1);
      expect(mail[0]!.data).toContain("Subject: Your marked script for");
      expect(mail[0]!.data).toContain(`Hello ${person.display_name}`);
    }
  });

  it("a refused send is retried later and never undoes the answer", async () => {
    setMailer(smtpMailer(`smtp://127.0.0.1:${port}`, "Markbook <markbook@school.example>"));
    refuse = true;
    const { canvas, student, script } = await markedReleasedBatch(database().db, school, { reviewsUntil: new Date(Date.now() + day) });
    const request = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q1a, reason: "Please." });
    const answer = await as(school.teacher).exam.reviews.answer({ request_id: request.id, outcome: "kept", reply: "Kept." });
    expect(answer.status).toBe("answered");
    await runDueJobs(database().db, { kinds: [studentNoticeJob] });
    const [job] = await noticeJobs(request.id);
    expect(job).toMatchObject({ state: "queued", attempts: 1, last_error: "The e-mail server did not take the message; it is tried again later." });
    expect((await as(student).student.reviews.mine({ submission_id: script.id })).requests[0]).toMatchObject({ status: "answered", outcome: "kept" });
  });

  it("without an SMTP server nothing is queued and answering works", async () => {
    setMailer(null);
    const { canvas, student, script } = await markedReleasedBatch(database().db, school, { reviewsUntil: new Date(Date.now() + day) });
    const request = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q2, reason: "Please." });
    await expect(as(school.teacher).exam.reviews.answer({ request_id: request.id, outcome: "kept", reply: "Kept." })).resolves.toMatchObject({ status: "answered" });
    expect(await noticeJobs(request.id)).toEqual([]);
  });
});
