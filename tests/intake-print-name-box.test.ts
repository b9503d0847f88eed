import crypto from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import { GET as getTemplateRoute, PUT as putTemplateRoute } from "../app/api/exam/templates/[template_id]/route";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/** The template's name box: where students write their name, read and written with the template. */
describeOnEachDatabase("a template's name box", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const nameBox = { page: 1, x: 0.1, y: 0.25, width: 0.8, height: 0.15 };

  const put = (token: string, templateId: string, body: unknown) =>
    callRest(putTemplateRoute, { method: "PUT", path: `/api/exam/templates/${templateId}`, token, body, params: { template_id: templateId } });
  const get = (token: string, templateId: string) => callRest(getTemplateRoute, { path: `/api/exam/templates/${templateId}`, token, params: { template_id: templateId } });

  async function newTemplate(pageCount = 4) {
    return as(school.teacher).exam.templates.create({ title: "Mock", page_count: pageCount });
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "NameBox");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  it("is null until set; set, changed and removed through REST and tRPC, alone or with a full canvas", async () => {
    const template = await newTemplate();
    expect(template.name_box).toBeNull();
    expect((await (await get(school.teacher.token, template.id)).json()).name_box).toBeNull();

    const saved = await put(school.teacher.token, template.id, { name_box: nameBox });
    expect(saved.status).toBe(200);
    expect((await saved.json()).name_box).toEqual(nameBox);
    expect((await (await get(school.otherTeacher.token, template.id)).json()).name_box).toEqual(nameBox);

    // A canvas save without name_box leaves it as it is; with one, changes it.
    expect((await as(school.teacher).exam.templates.save({ template_id: template.id, body: sampleCanvasWithoutIds() })).name_box).toEqual(nameBox);
    const moved = { ...nameBox, page: 2 };
    expect((await as(school.teacher).exam.templates.save({ template_id: template.id, body: { ...sampleCanvasWithoutIds(), name_box: moved } })).name_box).toEqual(moved);
    expect((await as(school.teacher).exam.templates.get({ template_id: template.id })).name_box).toEqual(moved);

    expect((await (await put(school.teacher.token, template.id, { name_box: null })).json()).name_box).toBeNull();
    expect((await as(school.teacher).exam.templates.get({ template_id: template.id })).name_box).toBeNull();
  });

  it("400 naming the name box: a page beyond the paper, a rectangle leaving the page, an empty one, values outside 0–1", async () => {
    const template = await newTemplate(2);
    const refusal = async (box: unknown) => {
      const response = await put(school.teacher.token, template.id, { name_box: box });
      expect(response.status).toBe(400);
      return (await response.json()).detail as string;
    };
    expect(await refusal({ ...nameBox, page: 3 })).toBe("Name box: page 3 is beyond the paper's 2 pages");
    expect(await refusal({ ...nameBox, x: 0.5, width: 0.6 })).toBe("Name box: the rectangle must lie inside the page (x + width ≤ 1, y + height ≤ 1)");
    expect(await refusal({ ...nameBox, height: 0 })).toBe("Name box: width and height must be more than 0");
    expect(await refusal({ ...nameBox, x: -0.1 })).toMatch(/^Name box, x: /);
    expect(await refusal({ ...nameBox, page: 0 })).toMatch(/^Name box, page: /);
    expect(await refusal({ x: 0.1 })).toMatch(/^Name box, page: /);
    expect(await refusal("top of page 1")).toMatch(/^Name box: /);
    // Lowering the page count below the name box's page is refused too.
    await put(school.teacher.token, template.id, { name_box: { ...nameBox, page: 2 } });
    const lowered = await put(school.teacher.token, template.id, { page_count: 1 });
    expect(lowered.status).toBe(400);
    expect((await lowered.json()).detail).toBe("Name box: page 2 is beyond the paper's 1 page");
    expect((await as(school.teacher).exam.templates.get({ template_id: template.id })).name_box).toEqual({ ...nameBox, page: 2 });
  });

  it("only the owner sets it (403 to a colleague), and a template of another school is not found", async () => {
    const template = await newTemplate();
    expect((await put(school.otherTeacher.token, template.id, { name_box: nameBox })).status).toBe(403);
    expect((await put(otherSchool.teacher.token, template.id, { name_box: nameBox })).status).toBe(404);
    expect((await put(school.teacher.token, crypto.randomUUID(), { name_box: nameBox })).status).toBe(404);
    expect((await as(school.teacher).exam.templates.get({ template_id: template.id })).name_box).toBeNull();
  });
});

function sampleCanvasWithoutIds() {
  const { ids: _ids, ...canvas } = sampleCanvas();
  return canvas;
}
