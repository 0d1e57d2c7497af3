/**
 * @module messages: the JSON-RPC messages of an answer, read from its bytes as they pass: a JSON body whole at its end,
 * an event stream event by event (sse.ts), a batch item by item. What its headers say is neither JSON nor an event
 * stream, or is compressed, is not read. One reader serves every tap of an answer (the outbound check, learning the
 * tools, telemetry), so that each message is parsed once. It never touches the bytes.
 */
import type { AnswerTap } from "../core/chain.js";
import { mediaType } from "../core/header-value.js";
import { createSseReader, type SseReader } from "./sse.js";

/**
 * Largest message read, in UTF-16 units of its text (16 Mi, four times the default inbound body limit): a larger JSON
 * body or SSE event is passed on unread rather than buffered.
 */
export const MAX_TAPPED_MESSAGE_UNITS = 16 * 1024 * 1024;

/** Stands for a body or event that is not JSON: no JSON-RPC kind, so a check reports it at the message itself. */
export const NOT_JSON: unique symbol = Symbol("not JSON");

/** The decoder of an answer's first chunk when it ends on an ASCII byte: it keeps no state between two calls. */
const FIRST_CHUNK = new TextDecoder("utf-8");
/** A character that is not white space, as `trim` reads it: a text without one is no message (and is not copied to say so). */
const NOT_BLANK = /\S/;

/** The headers the reader asks for. */
export type AnswerHeader = (name: "content-type" | "content-encoding") => string | null | undefined;

/**
 * A reader of one answer: `onMessage` is called with each message in order (`NOT_JSON` for one that does not parse).
 * The headers are read at the first byte, since a host may set them until then.
 */
export function readMessages(header: AnswerHeader, onMessage: (message: unknown) => void, maxUnits = MAX_TAPPED_MESSAGE_UNITS): AnswerTap {
  return new MessageStream(header, onMessage, maxUnits);
}

class MessageStream implements AnswerTap {
  private mode: "json" | "sse" | "ignore" | undefined;
  /** Whether any byte of the answer was decoded: a byte order mark is dropped only at its very start. */
  private started = false;
  /** The answer's own streaming decoder, made only once a chunk ends inside a character or a second chunk comes. */
  private decoder: InstanceType<typeof TextDecoder> | undefined;
  private text = "";
  // SSE: events past the bound are dropped whole, as a larger JSON body is.
  private events: SseReader | undefined;

  constructor(
    private readonly header: AnswerHeader,
    private readonly onMessage: (message: unknown) => void,
    private readonly maxUnits: number,
  ) {}

  push(chunk: Uint8Array | string): void {
    this.mode ??= this.modeOf();
    if (this.mode === "ignore") return;
    const piece = typeof chunk === "string" ? chunk : this.decoded(chunk);
    if (this.mode === "sse") {
      this.events ??= createSseReader(this.maxUnits);
      this.events.push(piece);
      return this.drain(this.events);
    }
    this.text += piece;
    // A JSON body past the bound is not read: holding it whole is what the bound is for.
    if (this.text.length > this.maxUnits) {
      this.mode = "ignore";
      this.text = "";
    }
  }

  end(): void {
    this.mode ??= this.modeOf();
    if (this.mode === "ignore") return;
    const rest = this.decoder?.decode() ?? "";
    if (this.mode === "sse") {
      this.events ??= createSseReader(this.maxUnits);
      this.events.push(rest);
      this.events.end();
      return this.drain(this.events);
    }
    this.text += rest;
    if (this.mode === "json") {
      if (NOT_BLANK.test(this.text)) this.messages(this.text);
      this.text = "";
    }
  }

  /**
   * A chunk's bytes as text, as one streaming decoder would read the answer: a first chunk that ends on an ASCII byte
   * (no character cut in two) by the shared decoder, the rest by a decoder of the answer's own.
   */
  private decoded(chunk: Uint8Array): string {
    if (chunk.length === 0) return "";
    if (!this.started) {
      this.started = true;
      if (chunk[chunk.length - 1]! < 0x80) return FIRST_CHUNK.decode(chunk);
      this.decoder = new TextDecoder("utf-8");
    }
    // Past the first chunk a byte order mark is text, as it is to a decoder already under way.
    this.decoder ??= new TextDecoder("utf-8", { ignoreBOM: true });
    return this.decoder.decode(chunk, { stream: true });
  }

  private modeOf(): "json" | "sse" | "ignore" {
    const { header } = this;
    // Compressed bytes (a compression middleware outside the gate) are not JSON the reader can read.
    const encoding = (header("content-encoding") ?? "identity").trim().toLowerCase();
    if (encoding !== "identity" && encoding !== "") return "ignore";
    const type = mediaType(header("content-type"));
    return type === "application/json" ? "json" : type === "text/event-stream" ? "sse" : "ignore";
  }

  // Data of no event, or only blank, is no message (a priming event, a keep-alive).
  private drain(reader: SseReader): void {
    for (let data = reader.next(); data !== undefined; data = reader.next()) if (NOT_BLANK.test(data)) this.messages(data);
  }

  private messages(json: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return this.tell(NOT_JSON);
    }
    // A batch (2025-03-26) holds one message per element.
    if (Array.isArray(parsed)) for (let i = 0; i < parsed.length; i++) this.tell(parsed[i]);
    else this.tell(parsed);
  }

  private tell(message: unknown): void {
    try {
      this.onMessage(message);
    } catch {
      // A reader of the messages must not break an answer already on its way.
    }
  }
}
