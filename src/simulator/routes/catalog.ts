import { z } from "zod";
import { findRegion, instanceTypes, regions, zones } from "../catalog.ts";
import { validationFailed } from "../errors.ts";
import { queryBool, queryString } from "../http/query.ts";
import { defineRoute } from "../http/route.ts";
import { formatMoney } from "../store/money.ts";

function knownRegion(id: string | undefined) {
  if (id === undefined) return undefined;
  const region = findRegion(id);
  if (region === undefined) {
    throw validationFailed([
      { path: "query.region", message: `unknown region "${id}"; list them at /catalog/regions` },
    ]);
  }
  return region;
}

const list = (items: unknown[]) => ({ status: 200, body: { items, nextCursor: null } });

export const catalogRoutes = [
  defineRoute({
    operation: "listRegions",
    method: "GET",
    path: "/catalog/regions",
    scopes: ["pools:read"],
    handle: () => list(regions.map((r) => ({ id: r.id, name: r.name, csps: [...r.csps] }))),
  }),
  defineRoute({
    operation: "listZones",
    method: "GET",
    path: "/catalog/zones",
    scopes: ["pools:read"],
    query: z.object({ region: queryString.optional(), available: queryBool.optional() }).strict(),
    handle: ({ world, query }) => {
      const region = knownRegion(query.region);
      return list(
        zones
          .map((zone) => ({
            id: zone.id,
            regionId: zone.regionId,
            available: !world.zonesWithoutCapacity.has(zone.id),
          }))
          .filter(
            (zone) =>
              (region === undefined || zone.regionId === region.id) &&
              (query.available === undefined || zone.available === query.available),
          ),
      );
    },
  }),
  defineRoute({
    operation: "listInstanceTypes",
    method: "GET",
    path: "/catalog/instance-types",
    scopes: ["pools:read"],
    query: z.object({ region: queryString.optional(), csp: queryString.optional() }).strict(),
    handle: ({ query }) => {
      const region = knownRegion(query.region);
      if (query.csp !== undefined && !regions.some((r) => r.csps.includes(query.csp ?? ""))) {
        throw validationFailed([{ path: "query.csp", message: `unknown csp "${query.csp}"` }]);
      }
      return list(
        instanceTypes
          .filter(
            (t) => (query.csp === undefined || t.csp === query.csp) && (region?.csps.includes(t.csp) ?? true),
          )
          .map((t) => ({
            id: t.id,
            csp: t.csp,
            cpu: t.cpu,
            memoryMb: t.memoryMb,
            gpu: t.gpu,
            hourlyPrice: formatMoney(t.hourlyPrice),
            currency: "USD",
          })),
      );
    },
  }),
];
