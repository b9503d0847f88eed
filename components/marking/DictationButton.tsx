"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/Button";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import { INSECURE_PAGE_MESSAGE, dictationStartFailureMessage, microphoneReachable } from "./dictation-errors";

/** Posts the microphone's samples (16 kHz mono float32, as the context runs at 16 kHz) in ~100 ms frames. */
const PCM_WORKLET = `
class PcmFrames extends AudioWorkletProcessor {
  constructor() { super(); this.buffer = new Float32Array(1600); this.length = 0; }
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) {
      for (let i = 0; i < channel.length; i++) {
        this.buffer[this.length++] = channel[i];
        if (this.length === this.buffer.length) { this.port.postMessage(this.buffer.slice(0)); this.length = 0; }
      }
    }
    return true;
  }
}
registerProcessor("markbook-pcm", PcmFrames);
`;

type Phase = "idle" | "starting" | "listening" | "stopping" | "error";

interface Session {
  socket: WebSocket;
  context: AudioContext;
  stream: MediaStream;
}

/**
 * Dictated comments: streams the microphone to /v1/websocket with a short-lived dictation key and
 * reports the text as it firms up. `onText(finals, partial)` gets every final so far and the partial
 * of the segment still being spoken; the caller decides how to merge it into the comment. `prompt`
 * (dictation-prompt.ts) is read when dictation starts: the words the transcript should spell right.
 * When the server cannot transcribe (no model it can load), the button is off and says why; a failure to
 * start is a sentence (dictation-errors.ts), cleared when the teacher tries again or `resetKey` (the
 * script and question on screen) changes.
 */
export function DictationButton({
  onStart,
  onText,
  prompt,
  disabled,
  resetKey,
}: {
  onStart: () => void;
  onText: (finals: string, partial: string) => void;
  prompt?: string;
  disabled?: boolean;
  /** What is on screen (the script and question): a new one clears the last failure's message. */
  resetKey?: string | null;
}) {
  const client = useTRPCClient();
  const trpc = useTRPC();
  // Whether the server can transcribe at all; asked again every few minutes (an admin may install a model).
  const status = useQuery({ ...trpc.speech.dictationStatus.queryOptions(), staleTime: 60_000, refetchInterval: 300_000 });
  const unavailable = status.data && !status.data.available ? status.data.reason : null;
  const noteId = useId();
  const [phase, setPhase] = useState<Phase>("idle");
  const [error, setError] = useState<string | null>(null);
  // A failure's message belongs to the script it happened on: the next one starts clean.
  const [shownFor, setShownFor] = useState(resetKey);
  if (shownFor !== resetKey) {
    setShownFor(resetKey);
    setError(null);
    if (phase === "error") setPhase("idle");
  }
  const session = useRef<Session | null>(null);
  const finals = useRef<string[]>([]);
  // The latest onText for the session's callbacks; written after render, never during it.
  const onTextRef = useRef(onText);
  useLayoutEffect(() => {
    onTextRef.current = onText;
  });

  function release() {
    const current = session.current;
    session.current = null;
    if (!current) return;
    current.stream.getTracks().forEach((track) => track.stop());
    void current.context.close().catch(() => {});
    if (current.socket.readyState <= WebSocket.OPEN) current.socket.close();
  }

  useEffect(() => release, []);

  async function start() {
    setError(null);
    setPhase("starting");
    finals.current = [];
    onStart();
    if (!microphoneReachable()) {
      setPhase("error");
      setError(INSECURE_PAGE_MESSAGE);
      return;
    }
    try {
      const { key } = await client.speech.dictationKey.mutate();
      const stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } });
      const context = new AudioContext({ sampleRate: 16000 });
      const moduleUrl = URL.createObjectURL(new Blob([PCM_WORKLET], { type: "text/javascript" }));
      await context.audioWorklet.addModule(moduleUrl);
      URL.revokeObjectURL(moduleUrl);
      const scheme = window.location.protocol === "https:" ? "wss" : "ws";
      const query = new URLSearchParams({ api_key: key, encoding: "pcm_f32le", ...(prompt ? { prompt } : {}) });
      const socket = new WebSocket(`${scheme}://${window.location.host}/v1/websocket?${query}`);
      socket.binaryType = "arraybuffer";
      const node = new AudioWorkletNode(context, "markbook-pcm");
      node.port.onmessage = ({ data }: MessageEvent<Float32Array>) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(data.buffer);
      };
      context.createMediaStreamSource(stream).connect(node);
      session.current = { socket, context, stream };
      socket.onopen = () => setPhase("listening");
      socket.onmessage = ({ data }) => {
        if (typeof data !== "string") return;
        const message = JSON.parse(data) as { type: string; text?: string; segment?: { text: string }; error?: { message: string } };
        if (message.type === "partial") onTextRef.current(finals.current.join(" "), message.text ?? "");
        else if (message.type === "final" && message.segment) {
          const text = message.segment.text.trim();
          if (text) finals.current.push(text);
          onTextRef.current(finals.current.join(" "), "");
        } else if (message.type === "error" && message.error) setError(message.error.message);
        else if (message.type === "closed") {
          release();
          setPhase("idle");
        }
      };
      socket.onerror = () => {
        setError("The dictation service could not be reached.");
        setPhase("error");
        release();
      };
      socket.onclose = () => {
        release();
        setPhase((p) => (p === "error" ? p : "idle"));
      };
    } catch (failure) {
      release();
      setPhase("error");
      setError(dictationStartFailureMessage(failure));
    }
  }

  function stop() {
    const current = session.current;
    if (!current) return;
    setPhase("stopping");
    // The server sends the last finals, then `closed`, then closes the socket.
    current.stream.getTracks().forEach((track) => track.stop());
    if (current.socket.readyState === WebSocket.OPEN) current.socket.send(JSON.stringify({ type: "end" }));
    else release();
  }

  const listening = phase === "listening" || phase === "starting";
  return (
    <span className="dictation">
      <Button
        variant="secondary"
        size="small"
        aria-pressed={listening}
        aria-describedby={unavailable && !listening ? noteId : undefined}
        disabled={disabled || phase === "stopping" || (Boolean(unavailable) && !listening)}
        onClick={() => (listening ? stop() : void start())}
        loading={phase === "starting" || phase === "stopping"}
        loadingLabel={phase === "starting" ? "Starting…" : "Finishing…"}
      >
        {listening ? "● Stop dictation" : "Dictate comment"}
      </Button>
      {unavailable && !listening ? (
        <span className="dictation__note muted" id={noteId}>
          {unavailable}
        </span>
      ) : null}
      {error ? (
        <span className="dictation__error" role="alert">
          {error}
        </span>
      ) : null}
    </span>
  );
}
