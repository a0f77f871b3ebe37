import { CustomObjectsApi, EventsV1Api, type KubeConfig } from "@kubernetes/client-node";
import { z } from "zod";
import {
  appNames,
  gridNames,
  group,
  type KindNames,
  labels,
  projectNames,
  serverOrderNames,
  spendLimitNames,
  version,
} from "../../api/meta.ts";
import { UsageError } from "../command.ts";
import { type TracedObject, type TraceEvent, type TraceInputs, tracedObjectSchema } from "./tree.ts";

const kinds = [appNames, projectNames, gridNames, serverOrderNames, spendLimitNames];

/** `app/web`, `apps/web`, `bapp/web`, `App/web`… → the kind and the name. */
export function parseTarget(target: string | undefined): { names: KindNames; name: string } {
  const [kind = "", name = "", ...rest] = (target ?? "").split("/");
  const names = kinds.find((k) =>
    [k.kind.toLowerCase(), k.plural, k.singular, ...k.shortNames].includes(kind.toLowerCase()),
  );
  if (names === undefined || name === "" || rest.length > 0) {
    throw new UsageError(
      `expected <kind>/<name>, got "${target ?? ""}"`,
      "kinds: project, app, grid, serverorder, spendlimit (or bproj, bapp, bgrid, border, bspend), e.g. berth trace project/demo",
    );
  }
  return { names, name };
}

const listSchema = z.object({ items: z.array(tracedObjectSchema) });

const eventSchema = z.looseObject({
  type: z.string().optional(),
  reason: z.string().optional(),
  note: z.string().optional(),
  regarding: z.looseObject({ uid: z.string().optional() }).optional(),
  eventTime: z.unknown().optional(),
  deprecatedLastTimestamp: z.unknown().optional(),
  series: z.looseObject({ lastObservedTime: z.unknown().optional() }).optional(),
  metadata: z.looseObject({ creationTimestamp: z.unknown().optional() }).optional(),
});

/** client-node hands times back as Date objects or strings, depending on the field. */
function isoOf(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  return typeof value === "string" && value !== "" ? value : undefined;
}

export class TraceReader {
  readonly #custom: CustomObjectsApi;
  readonly #events: EventsV1Api;

  constructor(config: KubeConfig) {
    this.#custom = config.makeApiClient(CustomObjectsApi);
    this.#events = config.makeApiClient(EventsV1Api);
  }

  async get(names: KindNames, namespace: string, name: string): Promise<TracedObject> {
    const object = await this.#custom
      .getNamespacedCustomObject({ group, version, plural: names.plural, namespace, name })
      .catch((error: unknown) => {
        if ((error as { code?: number }).code === 404) {
          throw new UsageError(
            `${names.kind} ${namespace}/${name} not found`,
            "check the name and -n NAMESPACE",
          );
        }
        throw error;
      });
    return tracedObjectSchema.parse(object);
  }

  /**
   * Resources of `root`'s kind in every namespace that carry its claim label; none when the
   * reader may not list across namespaces (the tree still shows the root's own claim).
   */
  async claimants(names: KindNames, root: TracedObject): Promise<TracedObject[]> {
    const value = root.metadata.labels?.[labels.claim];
    if (value === undefined) return [];
    const listed = await this.#custom
      .listClusterCustomObject({
        group,
        version,
        plural: names.plural,
        labelSelector: `${labels.claim}=${value}`,
      })
      .catch((error: unknown) => {
        if ((error as { code?: number }).code === 403) return { items: [] };
        throw error;
      });
    return listSchema.parse(listed).items;
  }

  async inputs(namespace: string): Promise<Omit<TraceInputs, "claimants">> {
    const list = async (names: KindNames) =>
      listSchema.parse(
        await this.#custom.listNamespacedCustomObject({ group, version, plural: names.plural, namespace }),
      ).items;
    const [apps, serverOrders, events] = await Promise.all([
      list(appNames),
      list(serverOrderNames),
      this.#events.listNamespacedEvent({ namespace }),
    ]);
    return { apps, serverOrders, events: events.items.flatMap((raw) => eventOf(raw)) };
  }
}

function eventOf(raw: unknown): TraceEvent[] {
  const event = eventSchema.safeParse(raw);
  if (!event.success) return [];
  const { data } = event;
  const at =
    isoOf(data.series?.lastObservedTime) ??
    isoOf(data.eventTime) ??
    isoOf(data.deprecatedLastTimestamp) ??
    isoOf(data.metadata?.creationTimestamp);
  const regarding = data.regarding?.uid;
  if (at === undefined || regarding === undefined) return [];
  return [{ regarding, type: data.type ?? "", reason: data.reason ?? "", note: data.note ?? "", at }];
}
