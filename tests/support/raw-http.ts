import net from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 connection written by hand, for what fetch hides: sending a body at the pace a test
 * chooses, reading the answer while still sending, and seeing exactly when the server hangs up.
 */
export class RawConnection {
  readonly socket: net.Socket;
  private received = Buffer.alloc(0);
  private parsedUpTo = 0;
  private waiters: (() => void)[] = [];
  closed = false;
  /** Set when the server reset the connection (or a write failed because it had hung up). */
  error: Error | null = null;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on("data", (data: Buffer) => {
      this.received = Buffer.concat([this.received, data]);
      this.wake();
    });
    socket.on("error", (error) => {
      this.error = error;
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(new RawConnection(socket)));
      socket.once("error", reject);
    });
  }

  private wake() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes and waits until the socket accepted the bytes; false once the server has hung up. */
  write(data: string | Uint8Array): Promise<boolean> {
    if (this.closed || this.error || this.socket.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => this.socket.write(data, (error) => resolve(!error)));
  }

  /** The next complete response, or null if the server hung up first. */
  async nextResponse(): Promise<RawResponse | null> {
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closed) return null;
      await this.changed();
    }
  }

  private parse(): RawResponse | null {
    const headEnd = this.received.indexOf("\r\n\r\n", this.parsedUpTo);
    if (headEnd < 0) return null;
    const [statusLine, ...lines] = this.received.subarray(this.parsedUpTo, headEnd).toString("latin1").split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let offset = headEnd + 4;
    let body: Buffer;
    if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
      const pieces: Buffer[] = [];
      for (;;) {
        const lineEnd = this.received.indexOf("\r\n", offset);
        if (lineEnd < 0) return null;
        const size = Number.parseInt(this.received.subarray(offset, lineEnd).toString("latin1"), 16);
        if (this.received.length < lineEnd + 2 + size + 2) return null;
        pieces.push(this.received.subarray(lineEnd + 2, lineEnd + 2 + size));
        offset = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(pieces);
    } else {
      const length = Number(headers["content-length"] ?? 0);
      if (this.received.length < offset + length) return null;
      body = this.received.subarray(offset, offset + length);
      offset += length;
    }
    this.parsedUpTo = offset;
    return { status: Number(statusLine!.split(" ")[1]), headers, body: body.toString("utf8") };
  }

  /** Resolves once the server has closed the connection (or `ms` passed: then `closed` is still false). */
  async closedWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.closed && Date.now() < deadline) {
      await Promise.race([this.changed(), new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    return this.closed;
  }

  end() {
    this.socket.destroy();
  }
}

/** One chunk of a chunked transfer-encoded body. */
export const chunk = (data: Uint8Array | string) => {
  const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data);
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]);
};
