import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { demoPaper } from "../exam/demo-paper";
import { asService } from "../db/rls";
import { classes, enrollments, examTemplates, instituteMemberships, institutes, timetableEntries, timetables, users } from "../db/schema";
import { calendarGraph } from "../graph/calendar";
import { personalUserNode } from "../graph/personal-node";
import { globalGraphDatabase, graphStore } from "../graph/index";
import type { GraphNodeInput, GraphRelationshipInput } from "../graph/port";
import { projectTemplate } from "../graph/projection";

/**
 * The demo school's graphs, so that every graph database a demo user may browse has real content:
 * each user's personal database (their User node, their classes, a teacher's timetable), the
 * school's database (departments, classes, teachers, students), its curriculum database (subjects,
 * specifications, specification points, the projected demo template) and the global calendar.
 * Writes are upserts: running it again changes nothing.
 */

/** The years of the demo calendar: the demo school's 2025–26 academic year. */
const DEMO_CALENDAR_YEARS = [2025, 2026];
export const CURRICULUM_ROOT_KEY = "curriculum";
export const departmentKey = (name: string) => `department-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
const subjectKey = (name: string) => `subject-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
export const timetableKey = (userId: string) => `timetable-${userId}`;
const lessonKey = (entryId: string) => `lesson-${entryId}`;

const departmentOfSubject: Record<string, string> = { Mathematics: "Mathematics", Physics: "Science" };

interface SpecificationPointSeed {
  code: string;
  name: string;
  points?: SpecificationPointSeed[];
}

interface SpecificationSeed {
  code: string;
  subject: string;
  name: string;
  topics: SpecificationPointSeed[];
}

/** The specifications the demo subjects follow; the demo paper's spec_refs are points of the first. */
export const demoSpecifications: SpecificationSeed[] = [
  {
    code: demoPaper.specification,
    subject: "Mathematics",
    name: "GCSE Mathematics (2025)",
    topics: [
      {
        code: "N",
        name: "Number",
        points: [
          { code: "N2", name: "Apply the four operations to integers, decimals and fractions" },
          { code: "N4", name: "Use the concepts and vocabulary of prime numbers, factors and multiples" },
          { code: "N12", name: "Interpret fractions and percentages as operators" },
        ],
      },
      {
        code: "A",
        name: "Algebra",
        points: [
          { code: "A4", name: "Simplify and manipulate algebraic expressions, including expanding products of two binomials" },
          { code: "A17", name: "Solve linear equations in one unknown algebraically" },
        ],
      },
      {
        code: "R",
        name: "Ratio, proportion and rates of change",
        points: [{ code: "R9", name: "Define percentage as 'number of parts per hundred'; solve problems involving percentages" }],
      },
      {
        code: "G",
        name: "Geometry and measures",
        points: [
          { code: "G19", name: "Apply the concepts of congruence and similarity, including lengths, areas and volumes in similar figures" },
          { code: "G20", name: "Know the formulae for Pythagoras' theorem and apply it" },
          { code: "G21", name: "Know and apply the trigonometric ratios sin, cos and tan in right-angled triangles" },
        ],
      },
    ],
  },
  {
    code: "NAB-GCSE-PHYS-2025",
    subject: "Physics",
    name: "GCSE Physics (2025)",
    topics: [
      {
        code: "P1",
        name: "Energy",
        points: [
          { code: "P1.1", name: "Energy stores and systems" },
          { code: "P1.2", name: "Conservation and dissipation of energy" },
        ],
      },
      {
        code: "P2",
        name: "Electricity",
        points: [{ code: "P2.1", name: "Current, potential difference and resistance" }],
      },
    ],
  },
];

/** A specification point's key is its full reference, as templates cite it in spec_ref. */
const specificationPointKey = (specification: string, code: string) => `${specification}/${code}`;

async function readDemoSchool(db: Db, instituteId: string) {
  // Seeding is an operator path: it reads the whole school with service rights.
  return asService(db, async (tx) => {
    const [institute] = await tx.select().from(institutes).where(eq(institutes.id, instituteId));
    if (!institute) throw new Error(`Institute ${instituteId} does not exist`);
    const memberships = await tx
      .select({ id: users.id, full_name: users.full_name, user_type: users.user_type, username: users.username, user_db_name: users.user_db_name, role: instituteMemberships.role })
      .from(instituteMemberships)
      .innerJoin(users, eq(users.id, instituteMemberships.user_id))
      .where(eq(instituteMemberships.institute_id, instituteId))
      .orderBy(asc(users.full_name), asc(users.id));
    const schoolClasses = await tx.select().from(classes).where(eq(classes.institute_id, instituteId)).orderBy(asc(classes.name));
    const enrolled = await tx
      .select({ class_id: enrollments.class_id, student_id: enrollments.student_id })
      .from(enrollments)
      .innerJoin(classes, eq(classes.id, enrollments.class_id))
      .where(and(eq(classes.institute_id, instituteId), eq(enrollments.active, true)));
    const lessons = await tx
      .select({
        id: timetableEntries.id,
        day: timetableEntries.day,
        period: timetableEntries.period,
        start_time: timetableEntries.start_time,
        end_time: timetableEntries.end_time,
        room: timetableEntries.room,
        class_id: timetableEntries.class_id,
        teacher_id: timetableEntries.teacher_id,
      })
      .from(timetableEntries)
      .innerJoin(timetables, eq(timetables.id, timetableEntries.timetable_id))
      .where(and(eq(timetables.institute_id, instituteId), eq(timetables.active, true)));
    const templates = await tx.select({ id: examTemplates.id }).from(examTemplates).where(eq(examTemplates.institute_id, instituteId));
    // One entry per person, with all their roles (a head of department is also a teacher).
    const byId = new Map<string, Omit<(typeof memberships)[number], "role"> & { roles: string[] }>();
    for (const { role, ...person } of memberships) {
      const known = byId.get(person.id);
      if (known) known.roles.push(role);
      else byId.set(person.id, { ...person, roles: [role] });
    }
    return { institute, people: [...byId.values()], schoolClasses, enrolled, lessons, templates };
  });
}

type DemoSchool = Awaited<ReturnType<typeof readDemoSchool>>;

/** Whether the demo graph is there already: the school's node exists (written last). */
export async function demoGraphExists(db: Db, instituteId: string): Promise<boolean> {
  const [institute] = await asService(db, (tx) =>
    tx.select({ graph_db_name: institutes.graph_db_name }).from(institutes).where(eq(institutes.id, instituteId)),
  );
  return institute ? (await graphStore(db).getNode(institute.graph_db_name, instituteId)) !== null : false;
}

/** Writes the demo school's graphs (upserts). The school database is written last: it marks completion. */
export async function seedDemoGraph(db: Db, instituteId: string): Promise<void> {
  const school = await readDemoSchool(db, instituteId);
  const store = graphStore(db);

  const calendar = calendarGraph(DEMO_CALENDAR_YEARS);
  await store.write(globalGraphDatabase(), async (writer) => {
    await writer.upsertNodes(calendar.nodes);
    await writer.upsertRelationships(calendar.relationships);
  });

  const curriculum = curriculumGraph(school);
  await store.write(school.institute.curriculum_db_name, async (writer) => {
    await writer.upsertNodes(curriculum.nodes);
    await writer.upsertRelationships(curriculum.relationships);
  });
  for (const template of school.templates) await projectTemplate(db, template.id);

  for (const personal of personalGraphs(school)) {
    await store.write(personal.database, async (writer) => {
      await writer.upsertNodes(personal.nodes);
      await writer.upsertRelationships(personal.relationships);
    });
  }

  const schoolGraph = schoolGraphOf(school);
  await store.write(school.institute.graph_db_name, async (writer) => {
    await writer.upsertNodes(schoolGraph.nodes);
    await writer.upsertRelationships(schoolGraph.relationships);
  });
}

function curriculumGraph(school: DemoSchool) {
  const root = { label: "Curriculum", key: CURRICULUM_ROOT_KEY };
  const nodes: GraphNodeInput[] = [{ ...root, properties: { name: `${school.institute.name} curriculum` } }];
  const relationships: GraphRelationshipInput[] = [];
  const subjects = [...new Set(demoSpecifications.map((specification) => specification.subject))];
  subjects.forEach((subject, index) => {
    const node = { label: "Subject", key: subjectKey(subject) };
    nodes.push({ ...node, properties: { name: subject, order: index + 1 } });
    relationships.push({ from: root, type: "HAS_SUBJECT", to: node });
  });
  for (const specification of demoSpecifications) {
    const specNode = { label: "Specification", key: specification.code };
    nodes.push({ ...specNode, properties: { name: specification.name, code: specification.code, subject: specification.subject } });
    relationships.push({ from: { label: "Subject", key: subjectKey(specification.subject) }, type: "HAS_SPECIFICATION", to: specNode });
    const addPoints = (parent: { label: string; key: string }, points: SpecificationPointSeed[]) => {
      points.forEach((point, index) => {
        const node = { label: "SpecificationPoint", key: specificationPointKey(specification.code, point.code) };
        nodes.push({ ...node, properties: { name: point.name, code: point.code, specification: specification.code, order: index + 1 } });
        relationships.push({ from: parent, type: "HAS_POINT", to: node });
        addPoints(node, point.points ?? []);
      });
    };
    addPoints(specNode, specification.topics);
  }
  return { nodes, relationships };
}

function personalGraphs(school: DemoSchool) {
  const classById = new Map(school.schoolClasses.map((schoolClass) => [schoolClass.id, schoolClass]));
  const classNode = (classId: string) => {
    const schoolClass = classById.get(classId)!;
    return {
      label: "Class",
      key: classId,
      properties: { name: schoolClass.name, subject: schoolClass.subject, school_db_name: school.institute.graph_db_name },
    };
  };

  return school.people.map((person) => {
    const user = { label: "User", key: person.id };
    const nodes: GraphNodeInput[] = [personalUserNode(person)];
    const relationships: GraphRelationshipInput[] = [];
    for (const schoolClass of school.schoolClasses.filter((candidate) => candidate.teacher_id === person.id)) {
      nodes.push(classNode(schoolClass.id));
      relationships.push({ from: user, type: "TEACHES", to: { label: "Class", key: schoolClass.id } });
    }
    for (const enrollment of school.enrolled.filter((candidate) => candidate.student_id === person.id)) {
      nodes.push(classNode(enrollment.class_id));
      relationships.push({ from: user, type: "ENROLLED_IN", to: { label: "Class", key: enrollment.class_id } });
    }
    const lessons = school.lessons.filter((lesson) => lesson.teacher_id === person.id);
    if (lessons.length > 0) {
      const timetable = { label: "UserTeacherTimetable", key: timetableKey(person.id) };
      nodes.push({ ...timetable, properties: { name: `${person.full_name}'s timetable` } });
      relationships.push({ from: user, type: "HAS_TIMETABLE", to: timetable });
      for (const lesson of lessons) {
        const node = { label: "TimetableLesson", key: lessonKey(lesson.id) };
        const className = lesson.class_id ? classById.get(lesson.class_id)?.name : undefined;
        nodes.push({
          ...node,
          properties: {
            name: `${className ?? "Lesson"}, day ${lesson.day} period ${lesson.period}`,
            day: lesson.day,
            period: lesson.period,
            start_time: lesson.start_time,
            end_time: lesson.end_time,
            room: lesson.room,
            order: lesson.day * 100 + lesson.period,
          },
        });
        relationships.push({ from: timetable, type: "HAS_LESSON", to: node });
      }
    }
    return { database: person.user_db_name, nodes, relationships };
  });
}

function schoolGraphOf(school: DemoSchool) {
  const root = { label: "School", key: school.institute.id };
  const nodes: GraphNodeInput[] = [{ ...root, properties: { name: school.institute.name } }];
  const relationships: GraphRelationshipInput[] = [];
  const nameOf = new Map(school.people.map((person) => [person.id, person.full_name]));

  const departments = [...new Set(school.schoolClasses.map((schoolClass) => departmentOfSubject[schoolClass.subject ?? ""] ?? "General"))].sort();
  departments.forEach((department, index) => {
    const node = { label: "Department", key: departmentKey(department) };
    nodes.push({ ...node, properties: { name: department, order: index + 1 } });
    relationships.push({ from: root, type: "HAS_DEPARTMENT", to: node });
  });

  for (const person of school.people) {
    if (person.roles.includes("student")) continue;
    nodes.push({ label: "Teacher", key: person.id, properties: { name: person.full_name, roles: person.roles } });
    relationships.push({ from: root, type: "HAS_STAFF", to: { label: "Teacher", key: person.id } });
  }

  school.schoolClasses.forEach((schoolClass, index) => {
    const node = { label: "Class", key: schoolClass.id };
    const students = school.enrolled.filter((enrollment) => enrollment.class_id === schoolClass.id);
    nodes.push({ ...node, properties: { name: schoolClass.name, subject: schoolClass.subject, student_count: students.length, order: index + 1 } });
    const department = departmentOfSubject[schoolClass.subject ?? ""] ?? "General";
    relationships.push({ from: { label: "Department", key: departmentKey(department) }, type: "HAS_CLASS", to: node });
    if (schoolClass.teacher_id) relationships.push({ from: node, type: "TAUGHT_BY", to: { label: "Teacher", key: schoolClass.teacher_id } });
    for (const enrollment of students) {
      nodes.push({ label: "Student", key: enrollment.student_id, properties: { name: nameOf.get(enrollment.student_id) } });
      relationships.push({ from: node, type: "HAS_STUDENT", to: { label: "Student", key: enrollment.student_id } });
    }
  });
  return { nodes, relationships };
}
