/**
 * The speech service's state as the web app shows it, through tRPC with a real database: the dictation
 * button learns whether dictation can work (and a sentence for the teacher when not), and a school admin's
 * Settings see which models can be loaded and why not; nobody else reads the operator's details.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { requiredModelFiles } from "../server/speech/model-install";
import { type SpeechService, createSpeechService, useSpeechService } from "../server/speech/service";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { testSpeechConfig } from "./support/speech-server";

describeOnEachDatabase("the speech service's state in the web app", (database) => {
  let school: School;
  let modelsDir: string;
  let service: SpeechService | undefined;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  /** The process's speech service on the test's models folder: `installed` are the model ids whose files are there. */
  function speechWith(installed: string[], settings: Record<string, string> = {}) {
    for (const id of installed) {
      for (const file of requiredModelFiles(testSpeechConfig().dtype)) {
        fs.mkdirSync(path.dirname(path.join(modelsDir, `${id}-folder`, file)), { recursive: true });
        fs.writeFileSync(path.join(modelsDir, `${id}-folder`, file), "{}");
      }
    }
    const sources = Object.fromEntries(["tiny", "base", "small", "medium", "large"].map((id) => [`SPEECH_MODEL_${id.toUpperCase()}`, `${id}-folder`]));
    service = createSpeechService(testSpeechConfig({ MODELS_DIR: modelsDir, ALLOW_REMOTE_MODELS: "false", SPEECH_DEFAULT_MODEL: "base", ...sources, ...settings }), {
      authenticate: async () => null,
    });
    useSpeechService(service);
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "Speech state");
  });
  afterEach(async () => {
    useSpeechService(undefined);
    await service?.close();
    service = undefined;
    if (modelsDir) fs.rmSync(modelsDir, { recursive: true, force: true });
  });
  afterAll(() => useSpeechService(undefined));

  const freshModelsDir = () => {
    modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-speech-state-"));
  };

  it("with no model: dictation is off with a sentence for the teacher, and the admin sees why in the server's words", async () => {
    freshModelsDir();
    speechWith([]);
    for (const user of [school.teacher, school.head, school.admin, school.student]) {
      expect(await as(user).speech.dictationStatus()).toEqual({
        available: false,
        reason: "Dictation is not available: this server has no speech model installed.",
      });
    }
    // The teacher's sentence names no folder or setting.
    expect(JSON.stringify(await as(school.teacher).speech.dictationStatus())).not.toContain(modelsDir);

    const state = await as(school.admin).speech.serviceStatus();
    expect(state).toMatchObject({ status: "unhealthy", ready: false, default_model: "base", dictation: { available: false } });
    expect(state.models.map((model) => [model.id, model.status])).toEqual([
      ["tiny", "unhealthy"],
      ["base", "unhealthy"],
      ["small", "unhealthy"],
      ["medium", "unhealthy"],
      ["large", "unhealthy"],
    ]);
    expect(state.reasons.join(" ")).toContain("SPEECH_DEFAULT_MODEL");
    expect(state.models[1]!.reason).toContain(modelsDir);
  });

  it("with another model than the default: dictation is off and says the model it uses is missing; the admin sees which one works", async () => {
    freshModelsDir();
    speechWith(["tiny"]);
    expect(await as(school.teacher).speech.dictationStatus()).toEqual({
      available: false,
      reason: "Dictation is not available: the speech model it uses is not installed on this server.",
    });
    const state = await as(school.admin).speech.serviceStatus();
    expect(state.ready).toBe(true);
    expect(state.models.find((model) => model.id === "tiny")).toEqual({ id: "tiny", status: "healthy", source: "tiny-folder", from: "disk", reason: null });
  });

  it("with the default model installed: dictation is on", async () => {
    freshModelsDir();
    speechWith(["base"]);
    expect(await as(school.teacher).speech.dictationStatus()).toEqual({ available: true, reason: null });
    expect(await as(school.admin).speech.serviceStatus()).toMatchObject({ ready: true, dictation: { available: true, reason: null } });
  });

  it("shows the service's details to school admins only", async () => {
    freshModelsDir();
    speechWith([]);
    for (const user of [school.teacher, school.head, school.student, school.otherTeacher]) {
      await expect(as(user).speech.serviceStatus()).rejects.toMatchObject({ code: "FORBIDDEN", message: "Only a school admin sees the speech service's state" });
    }
  });
});
