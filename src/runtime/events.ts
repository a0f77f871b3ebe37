import type { Logger } from "../telemetry/logger.ts";
import { isKubeError } from "./errors.ts";
import { type KubeClient, patchTypes } from "./kube-client.ts";
import { microTime, preciseNow } from "./micro-time.ts";
import type { KubeObject } from "./object.ts";

export type EventType = "Normal" | "Warning";

/** Where events are written; `kubeEventSink` writes them to the API server. */
export interface EventSink {
  create(namespace: string, event: Record<string, unknown>): Promise<void>;
  /** Rejects with a `not_found` KubeApiError when the Event no longer exists. */
  updateSeries(namespace: string, name: string, series: EventSeries): Promise<void>;
}

export interface EventSeries {
  count: number;
  lastObservedTime: string;
}

export function kubeEventSink(client: KubeClient): EventSink {
  return {
    async create(namespace, event) {
      await client.call("POST", eventsPath(namespace), { body: event });
    },
    async updateSeries(namespace, name, series) {
      await client.call("PATCH", `${eventsPath(namespace)}/${encodeURIComponent(name)}`, {
        body: { series },
        contentType: patchTypes.merge,
      });
    },
  };
}

export interface EventRecorderOptions {
  sink: EventSink;
  logger: Logger;
  /** The pod or host name of this replica. */
  reportingInstance: string;
  reportingController?: string;
  /** A repeat of the same event within this window updates its series instead (default 10 min). */
  windowMs?: number;
  /** Milliseconds since the epoch, possibly fractional. */
  now?: () => number;
}

interface Occurrence {
  namespace: string;
  objectName: string;
  /** The Event's own name. */
  name: string;
  body: Record<string, unknown>;
  count: number;
  lastAt: number;
  created: boolean;
  /** A write is queued behind the one in flight; it will send the latest count. */
  queued: boolean;
  writing: Promise<void>;
}

const eventsPath = (namespace: string) =>
  `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;
const maxNoteLength = 1024;
const maxTracked = 4096;

/**
 * Records `events.k8s.io/v1` Events about objects. The same object, type, reason, action and note
 * within the window is one Event whose `series` counts the repeats. Never throws: failures are
 * logged, since an event is never worth failing a reconcile for.
 */
export class EventRecorder {
  readonly #options: EventRecorderOptions;
  readonly #now: () => number;
  readonly #windowMs: number;
  readonly #occurrences = new Map<string, Occurrence>();
  #sequence = 0;

  constructor(options: EventRecorderOptions) {
    this.#options = options;
    this.#now = options.now ?? preciseNow;
    this.#windowMs = options.windowMs ?? 10 * 60_000;
  }

  /** `action` says what the controller did or failed to do (defaults to `reason`). */
  record(regarding: KubeObject, type: EventType, reason: string, note: string, action = reason): void {
    try {
      this.#record(regarding, type, reason, note, action);
    } catch (error) {
      this.#options.logger.warn({ err: error, reason }, "could not record event");
    }
  }

  /** Resolves when every event write started so far has finished. */
  async flush(): Promise<void> {
    await Promise.all([...this.#occurrences.values()].map((o) => o.writing));
  }

  #record(regarding: KubeObject, type: EventType, reason: string, note: string, action: string): void {
    const { apiVersion, kind, metadata } = regarding;
    if (apiVersion === undefined || kind === undefined) {
      this.#options.logger.warn(
        { reason, name: metadata.name },
        "event not recorded: object lacks apiVersion/kind",
      );
      return;
    }
    const now = this.#now();
    const trimmedNote = note.length > maxNoteLength ? `${note.slice(0, maxNoteLength - 3)}...` : note;
    const key = JSON.stringify([
      metadata.uid,
      metadata.namespace,
      metadata.name,
      kind,
      type,
      reason,
      action,
      trimmedNote,
    ]);
    const seen = this.#occurrences.get(key);
    if (seen !== undefined && now - seen.lastAt <= this.#windowMs) {
      seen.count += 1;
      seen.lastAt = now;
      this.#write(seen);
      return;
    }
    this.#forgetExpired(now);
    const namespace = metadata.namespace ?? "default";
    const occurrence: Occurrence = {
      namespace,
      objectName: metadata.name,
      name: this.#eventName(metadata.name, now),
      count: 1,
      lastAt: now,
      created: false,
      queued: false,
      writing: Promise.resolve(),
      body: {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        eventTime: microTime(now),
        reportingController: this.#options.reportingController ?? "berth.dev/operator",
        reportingInstance: this.#options.reportingInstance,
        action,
        reason,
        note: trimmedNote,
        type,
        regarding: {
          apiVersion,
          kind,
          name: metadata.name,
          ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
          ...(metadata.uid ? { uid: metadata.uid } : {}),
          ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
        },
      },
    };
    this.#occurrences.set(key, occurrence);
    this.#write(occurrence);
  }

  /** Serializes writes per event; repeats arriving during a write collapse into one later patch. */
  #write(occurrence: Occurrence): void {
    if (occurrence.queued) return;
    occurrence.queued = true;
    occurrence.writing = occurrence.writing.then(async () => {
      occurrence.queued = false;
      try {
        await this.#send(occurrence);
      } catch (error) {
        this.#options.logger.warn(
          { err: error, reason: occurrence.body.reason, event: occurrence.name },
          "could not write event",
        );
      }
    });
  }

  async #send(occurrence: Occurrence): Promise<void> {
    const { sink } = this.#options;
    if (occurrence.created && occurrence.count > 1) {
      try {
        await sink.updateSeries(occurrence.namespace, occurrence.name, seriesOf(occurrence));
        return;
      } catch (error) {
        // Events expire (1 h by default): start a new one rather than lose the repeat.
        if (!isKubeError(error, "not_found")) throw error;
        occurrence.count = 1;
        occurrence.name = this.#eventName(occurrence.objectName, occurrence.lastAt);
        occurrence.body.eventTime = microTime(occurrence.lastAt);
      }
    }
    const series = occurrence.count > 1 ? { series: seriesOf(occurrence) } : {};
    const metadata = { name: occurrence.name, namespace: occurrence.namespace };
    await sink.create(occurrence.namespace, { ...occurrence.body, ...series, metadata });
    occurrence.created = true;
  }

  /** Like client-go: the object's name, a dot, and a unique hexadecimal time. */
  #eventName(objectName: string, now: number): string {
    const unique = (BigInt(Math.floor(now)) * 1_000_000n + BigInt(this.#sequence++ % 1_000_000)).toString(16);
    return `${objectName.slice(0, 253 - unique.length - 1)}.${unique}`;
  }

  #forgetExpired(now: number): void {
    if (this.#occurrences.size < maxTracked) return;
    for (const [key, occurrence] of this.#occurrences) {
      if (now - occurrence.lastAt > this.#windowMs) this.#occurrences.delete(key);
    }
  }
}

function seriesOf(occurrence: Occurrence): EventSeries {
  return { count: occurrence.count, lastObservedTime: microTime(occurrence.lastAt) };
}
