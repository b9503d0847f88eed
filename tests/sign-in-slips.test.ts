import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { GET as bootstrapRoute } from "../app/me/bootstrap/route";
import { POST as signInSlipsRoute } from "../app/api/school/sign-in-slips/route";
import { POST as trpcRoute } from "../app/api/trpc/[trpc]/route";
import { sessionCookieName } from "../server/auth/next-auth";
import { withSignInResponse } from "../server/sign-in/sign-in-response";
import { createClass } from "../server/classroom/classes";
import { enrollStudent } from "../server/classroom/enrollments";
import { asService } from "../server/db/rls";
import { users } from "../server/db/schema";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { workerImaging } from "../server/exam/intake/imaging/index";
import { placeholderEmail } from "../server/identity/placeholder-email";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileJsonToken, hostileString } from "./support/hostile-input";
import { imagingDouble } from "./support/intake-imaging-double";
import { nextAuthRoute } from "./support/next-auth-route";
import { pdfTextPages } from "./support/pdf-text";

/**
 * Sign-in slips (issue 33, item 5): an admin prints, for a class, a year group or a selection, one PDF
 * of slips with a fresh temporary password each; a person signs in with their slip and chooses their
 * own password. The PDF is made by the imaging worker process, as the server makes it.
 */

const ORIGIN = "http://localhost:3206";
const { seed, cases } = fuzzSettings(60);
const TEMPORARY_PASSWORD = /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/;

function postSlips(token: string, body: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  return signInSlipsRoute(
    new Request("http://localhost/api/school/sign-in-slips", { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) }),
    { params: Promise.resolve({}) },
  );
}

/** The slips of a PDF as their text lines: the lines from a name down to "You will choose …". */
function slipsOf(pages: string[]) {
  const slips: { name: string; className: string; email: string; username: string; password: string }[] = [];
  for (const page of pages) {
    const lines = page.split("\n").filter((line) => line.trim() !== "");
    for (let index = 0; index < lines.length; index++) {
      if (!lines[index]!.endsWith("· Markbook")) continue;
      const slip = lines.slice(index + 1, lines.indexOf("You will choose your own password when you first sign in.", index));
      const after = (label: string) => slip.find((line) => line.startsWith(label))?.slice(label.length) ?? "";
      slips.push({
        name: slip[0]!,
        className: slip[1]!,
        username: after("Username: "),
        // A placeholder email is not printed: the username is what such a person types.
        email: after("or email: "),
        password: slip[slip.indexOf("Temporary password:") + 1]!,
      });
    }
  }
  return slips;
}

const setCookies = (response: Response) => response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!);

/** A sign-in as the sign-in page makes it (see tests/auth-sign-in-route.test.ts): the session cookie, or null. */
async function signIn(email: string, password: string): Promise<string | null> {
  const csrf = await nextAuthRoute(new Request(`${ORIGIN}/api/auth/csrf`, { headers: { host: "localhost:3206" } }), "csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const request = new Request(`${ORIGIN}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { host: "localhost:3206", "content-type": "application/x-www-form-urlencoded", cookie: setCookies(csrf).join("; ") },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: `${ORIGIN}/templates`, json: "true" }),
  });
  const response = await withSignInResponse(() => nextAuthRoute(request, "callback/credentials"));
  if (response.status !== 200) return null;
  return setCookies(response).find((cookie) => cookie.startsWith(`${sessionCookieName}=`)) ?? null;
}

describeOnEachDatabase("sign-in slips", (database) => {
  let school: School;
  let otherSchool: School;
  let tag: string;
  let classA: { id: string; name: string };
  let classB: { id: string; name: string };
  const people: Record<string, { id: string; email: string }> = {};

  beforeAll(async () => {
    setIntakeImaging(workerImaging());
    school = await createSchool(database().db, "Slips");
    otherSchool = await createSchool(database().db, "Elsewhere");
    tag = crypto.randomBytes(3).toString("hex");
    await asService(database().db, async (tx) => {
      classA = await createClass(tx, { instituteId: school.institute.id, name: `7A ${tag}`, teacherId: school.teacher.id });
      classB = await createClass(tx, { instituteId: school.institute.id, name: `7B ${tag}`, teacherId: school.teacher.id });
      const add = async (key: string, fullName: string, classId: string | null, options: { password?: string; yearGroup?: string } = {}) => {
        const user = await createUser(tx, {
          email: `${key}.${tag}@example.org`,
          fullName,
          instituteId: school.institute.id,
          role: "student",
          password: options.password,
          yearGroup: options.yearGroup ?? "Year 7",
        });
        if (classId) await enrollStudent(tx, { classId, studentId: user.id });
        people[key] = { id: user.id, email: user.email };
      };
      await add("lukasz", "Łukasz Wójcik", classA.id);
      await add("sukru", "Şükrü Yılmaz", classA.id);
      await add("dmitri", "Дмитрий Иванов", classA.id);
      await add("has", "Hasan Passworded", classA.id, { password: "an old password" });
      await add("anh", "Nguyễn Thị Ánh", classB.id);
      await add("alex", "Αλέξανδρος Παπαδόπουλος", classB.id);
      await add("nine", "Nina Ninth", null, { yearGroup: "Year 9" });
    });
  });

  const passwordState = async (id: string) => {
    const [row] = await asService(database().db, (tx) => tx.select({ hash: users.password_hash, must: users.must_change_password }).from(users).where(eq(users.id, id)));
    return row!;
  };

  it("prints a class's slips, names in any script, sorted by surname, only for people without a password, and a slip signs in", async () => {
    const response = await postSlips(school.admin.token, { class_id: classA.id });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-markbook-slips")).toBe("3");
    expect(response.headers.get("x-markbook-skipped")).toBe("1");
    const pdf = new Uint8Array(await response.arrayBuffer());
    // Fonts subset: three slips are a few tens of kilobytes, not the 1.4 MB of the two fonts.
    expect(pdf.byteLength).toBeLessThan(100_000);
    const slips = slipsOf(await pdfTextPages(pdf));
    // Surnames by the collation: Wójcik, Yılmaz, then Иванов (Cyrillic after Latin).
    expect(slips.map((slip) => slip.name)).toEqual(["Łukasz Wójcik", "Şükrü Yılmaz", "Дмитрий Иванов"]);
    expect(slips.every((slip) => slip.className === classA.name)).toBe(true);
    expect(slips.map((slip) => slip.email)).toEqual([people.lukasz!.email, people.sukru!.email, people.dmitri!.email]);
    for (const slip of slips) expect(slip.password).toMatch(TEMPORARY_PASSWORD);
    const text = (await pdfTextPages(pdf)).join("\n");
    expect(text).toContain("Sign in at http://localhost:");
    expect(text).toContain("You will choose your own password when you first sign in.");
    expect(text).toContain(school.institute.name);
    // The person who had a password keeps it.
    expect((await passwordState(people.has!.id)).must).toBe(false);
    const stored = await passwordState(people.lukasz!.id);
    expect(stored).toMatchObject({ must: true });
    expect(stored.hash).not.toContain(slips[0]!.password);

    // Łukasz signs in with his slip's username, is asked to choose a password, chooses it, and signs in with it.
    const slip = slips[0]!;
    expect(slip.username).not.toBe("");
    const session = await signIn(slip.username.toUpperCase(), slip.password);
    expect(session).not.toBeNull();
    const asked = await bootstrapRoute(new Request("http://localhost/me/bootstrap", { headers: { cookie: session! } }), { params: Promise.resolve({}) });
    expect(asked.status).toBe(403);
    expect((await asked.json()).detail).toMatch(/^Choose your own password first/);
    const chosen = await trpcRoute(
      new Request("http://localhost/api/trpc/me.choosePassword", {
        method: "POST",
        headers: { cookie: session!, "content-type": "application/json" },
        body: JSON.stringify({ json: { current_password: slip.password, new_password: "my own password, chosen" } }),
      }),
    );
    expect(chosen.status).toBe(200);
    expect(await signIn(slip.email, slip.password)).toBeNull();
    const mine = await signIn(slip.email, "my own password, chosen");
    expect(mine).not.toBeNull();
    const inside = await bootstrapRoute(new Request("http://localhost/me/bootstrap", { headers: { cookie: mine! } }), { params: Promise.resolve({}) });
    expect(inside.status).toBe(200);
  });

  it("reissues for everyone chosen only when asked, replacing the passwords they had", async () => {
    const selection = { user_ids: [people.has!.id, people.sukru!.id] };
    // Şükrü got a slip above, so both now have a password: nothing to print without reissue.
    const nothing = await postSlips(school.admin.token, selection);
    expect(nothing.status).toBe(409);
    expect((await nothing.json()).detail).toMatch(/already has a password \(2 people\).*replaces/);
    const before = await passwordState(people.has!.id);
    const response = await postSlips(school.admin.token, { ...selection, reissue: true });
    expect(response.status).toBe(200);
    const slips = slipsOf(await pdfTextPages(new Uint8Array(await response.arrayBuffer())));
    expect(slips.map((slip) => slip.name)).toEqual(["Hasan Passworded", "Şükrü Yılmaz"]);
    const after = await passwordState(people.has!.id);
    expect(after.hash).not.toBe(before.hash);
    expect(after.must).toBe(true);
    expect(await signIn(people.has!.email, "an old password")).toBeNull();
    expect(await signIn(people.has!.email, slips[0]!.password)).not.toBeNull();
  });

  it("prints no placeholder email on the slip of a pupil imported with a username only, who signs in with the username", async () => {
    const quiet = await asService(database().db, async (tx) => {
      const user = await createUser(tx, { email: placeholderEmail(`quiet.${tag}`), fullName: "Quinn Quiet", instituteId: school.institute.id, role: "student", yearGroup: "Year 10" });
      return user;
    });
    const response = await postSlips(school.admin.token, { user_ids: [quiet.id] });
    expect(response.status).toBe(200);
    const text = (await pdfTextPages(new Uint8Array(await response.arrayBuffer()))).join("\n");
    expect(text).not.toContain("no-email.invalid");
    const [slip] = slipsOf([text]);
    expect(slip).toMatchObject({ name: "Quinn Quiet", username: quiet.username, email: "" });
    expect(await signIn(quiet.username, slip!.password)).not.toBeNull();
  });

  it("prints a year group sorted by class then surname, people without a class last, never the admin themselves", async () => {
    await asService(database().db, (tx) => tx.update(users).set({ year_group: "year 7 " }).where(eq(users.id, school.admin.id)));
    const response = await postSlips(school.admin.token, { year_group: "YEAR 7", reissue: true });
    expect(response.status).toBe(200);
    const slips = slipsOf(await pdfTextPages(new Uint8Array(await response.arrayBuffer())));
    expect(slips.map((slip) => [slip.className, slip.name])).toEqual([
      [classA.name, "Hasan Passworded"],
      [classA.name, "Łukasz Wójcik"],
      [classA.name, "Şükrü Yılmaz"],
      [classA.name, "Дмитрий Иванов"],
      // Sorted by the last word, as every list of Markbook is: Ánh (Latin) before Παπαδόπουλος (Greek).
      [classB.name, "Nguyễn Thị Ánh"],
      [classB.name, "Αλέξανδρος Παπαδόπουλος"],
    ]);
    const nine = slipsOf(await pdfTextPages(new Uint8Array(await (await postSlips(school.admin.token, { user_ids: [people.nine!.id] })).arrayBuffer())));
    expect(nine).toEqual([expect.objectContaining({ name: "Nina Ninth", className: "No class" })]);
  });

  it("says how many slips a choice prints before printing (tRPC people.signInSlipsPreview)", async () => {
    const caller = createCaller({ db: database().db, user: { id: school.admin.id } });
    const fresh = await asService(database().db, (tx) =>
      createUser(tx, { email: `fresh.${tag}@example.org`, fullName: "Fresh Face", instituteId: school.institute.id, role: "student" }),
    );
    await asService(database().db, (tx) => enrollStudent(tx, { classId: classB.id, studentId: fresh.id }));
    expect(await caller.people.signInSlipsPreview({ class_id: classB.id })).toEqual({ without_password: 1, with_password: 2 });
  });

  it("is for admins of the school only: another school's class or people are not found, and nothing of theirs changes", async () => {
    for (const person of [school.head, school.teacher, school.student]) {
      const refused = await postSlips(person.token, { class_id: classA.id });
      expect(refused.status).toBe(403);
    }
    const foreignClass = await asService(database().db, (tx) => createClass(tx, { instituteId: otherSchool.institute.id, name: `Far ${tag}` }));
    await asService(database().db, (tx) => enrollStudent(tx, { classId: foreignClass.id, studentId: otherSchool.student.id }));
    const byClass = await postSlips(otherSchool.admin.token, { class_id: classA.id });
    expect(byClass.status).toBe(404);
    expect(await byClass.json()).toEqual({ detail: "Class not found" });
    const byPeople = await postSlips(otherSchool.admin.token, { user_ids: [otherSchool.student.id, people.anh!.id] });
    expect(byPeople.status).toBe(404);
    expect(await byPeople.json()).toEqual({ detail: "Person not found" });
    const ghost = await postSlips(otherSchool.admin.token, { user_ids: [crypto.randomUUID()] });
    expect(await ghost.json()).toEqual({ detail: "Person not found" });
    // A's people kept their state; B's student did not get a password from the refused call either.
    expect((await passwordState(people.anh!.id)).must).toBe(true);
    expect((await passwordState(otherSchool.student.id)).hash).toBeNull();
    const caller = createCaller({ db: database().db, user: { id: otherSchool.admin.id } });
    await expect(caller.people.signInSlipsPreview({ class_id: classA.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("changes no password when the PDF cannot be made", async () => {
    const lonely = await asService(database().db, (tx) =>
      createUser(tx, { email: `lonely.${tag}@example.org`, fullName: "Lonely Person", instituteId: school.institute.id, role: "teacher" }),
    );
    setIntakeImaging({ ...imagingDouble(), signInSlips: () => Promise.reject(new Error("the worker fell over")) });
    try {
      const response = await postSlips(school.admin.token, { user_ids: [lonely.id] });
      expect(response.status).toBe(500);
    } finally {
      setIntakeImaging(workerImaging());
    }
    expect(await passwordState(lonely.id)).toEqual({ hash: null, must: false });
  });

  it("answers a hostile choice with a 400 that says what is wrong, and changes nothing", async () => {
    const fields = ["class_id", "year_group", "user_ids", "reissue"];
    const samples = fc.sample(
      fc.record({ field: fc.constantFrom(...fields), text: hostileString, token: hostileJsonToken, raw: fc.boolean(), withClass: fc.boolean() }),
      { seed, numRuns: cases },
    );
    const before = await passwordState(people.dmitri!.id);
    for (const { field, text, token, raw, withClass } of samples) {
      // A hostile value in one field, alone or beside a valid class (then two choices).
      const prefix = withClass && field !== "class_id" && field !== "reissue" ? `"class_id": "${classA.id}", ` : "";
      const body = raw ? `{${prefix}"${field}": ${token}}` : JSON.stringify({ ...(prefix ? { class_id: classA.id } : {}), [field]: text });
      const response = await postSlips(school.admin.token, body);
      // A year group that is plain text chooses nobody (409); anything else is refused as input.
      expect(field === "year_group" && !prefix ? [400, 409] : [400], body.slice(0, 80)).toContain(response.status);
      expect((await response.json()).detail, body.slice(0, 80)).toEqual(expect.any(String));
    }
    for (const body of [{}, { class_id: classA.id, year_group: "Year 7" }, { user_ids: [] }, { user_ids: Array.from({ length: 1001 }, () => crypto.randomUUID()) }]) {
      expect((await postSlips(school.admin.token, body)).status).toBe(400);
    }
    expect(await passwordState(people.dmitri!.id)).toEqual(before);
  });
});
