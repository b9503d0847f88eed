import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatTimestamp, renderSrt, renderTranscript, renderVtt, type Transcript, verboseJson } from "../server/speech/formats";

const golden = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "fixtures/audio/golden", name), "utf8");
const transcript = JSON.parse(golden("transcript.json")) as Transcript;

describe("speech response formats (golden files)", () => {
  it("formats timestamps in SRT and VTT style, including past one hour and rounding to the millisecond", () => {
    expect(formatTimestamp(0, ",")).toBe("00:00:00,000");
    expect(formatTimestamp(3725.5, ",")).toBe("01:02:05,500");
    expect(formatTimestamp(3725.5, ".")).toBe("01:02:05.500");
    expect(formatTimestamp(59.9996, ".")).toBe("00:01:00.000");
    expect(formatTimestamp(360_000.25, ",")).toBe("100:00:00,250");
    expect(formatTimestamp(-1, ",")).toBe("00:00:00,000");
  });

  it("renders SRT: numbered cues, HH:MM:SS,mmm, blank segments skipped", () => {
    expect(renderSrt(transcript.segments)).toBe(golden("expected.srt"));
  });

  it("renders VTT: WEBVTT header, HH:MM:SS.mmm", () => {
    expect(renderVtt(transcript.segments)).toBe(golden("expected.vtt"));
  });

  it("renders verbose_json with every Segment field, and words when asked", () => {
    expect(verboseJson(transcript, ["segment", "word"])).toEqual(JSON.parse(golden("expected.verbose.json")));
    const segmentsOnly = verboseJson(transcript, []);
    expect(segmentsOnly).not.toHaveProperty("words");
    expect(segmentsOnly.segments).toHaveLength(4);
    const wordsOnly = verboseJson(transcript, ["word"]);
    expect(wordsOnly).not.toHaveProperty("segments");
    expect(wordsOnly.words).toHaveLength(3);
  });

  it("names the content type of each response format", () => {
    const types = Object.fromEntries(
      (["json", "text", "srt", "vtt", "verbose_json"] as const).map((format) => [format, renderTranscript(transcript, format).contentType]),
    );
    expect(types).toEqual({
      json: "application/json",
      verbose_json: "application/json",
      text: "text/plain; charset=utf-8",
      srt: "application/x-subrip; charset=utf-8",
      vtt: "text/vtt; charset=utf-8",
    });
    expect(JSON.parse(renderTranscript(transcript, "json").body)).toEqual({ text: transcript.text });
    expect(renderTranscript(transcript, "text").body).toBe(`${transcript.text}\n`);
  });

  it("renders an empty transcript as empty subtitles", () => {
    expect(renderSrt([])).toBe("");
    expect(renderVtt([])).toBe("WEBVTT\n\n");
  });
});
