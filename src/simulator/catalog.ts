/** The fixed catalog the simulator offers: regions, zones and instance types with hourly prices. */

export interface Region {
  id: string;
  name: string;
  csps: string[];
}

export interface Zone {
  id: string;
  regionId: string;
}

export interface InstanceType {
  id: string;
  csp: string;
  cpu: number;
  memoryMb: number;
  gpu: number;
  /** Micro-USD per hour. */
  hourlyPrice: number;
}

/** The csp value naming the service's own compute. */
export const NATIVE_CSP = "native";
const csps = [NATIVE_CSP, "aws", "gcp"];

export const regions: readonly Region[] = [
  { id: "eu-central", name: "Frankfurt", csps },
  { id: "us-east", name: "Virginia", csps },
  { id: "ap-southeast", name: "Singapore", csps: [NATIVE_CSP, "aws"] },
];

export const zones: readonly Zone[] = regions.flatMap((region) =>
  ["a", "b", "c"].map((letter) => ({ id: `${region.id}-1${letter}`, regionId: region.id })),
);

const shapes = [
  { name: "small", cpu: 2, memoryMb: 4096, gpu: 0, price: 52_000 },
  { name: "medium", cpu: 4, memoryMb: 8192, gpu: 0, price: 104_000 },
  { name: "large", cpu: 8, memoryMb: 32768, gpu: 0, price: 236_000 },
  { name: "gpu", cpu: 8, memoryMb: 65536, gpu: 1, price: 1_210_000 },
];

export const instanceTypes: readonly InstanceType[] = csps.flatMap((csp, i) =>
  shapes.map((shape) => ({
    id: `${csp}.${shape.name}`,
    csp,
    cpu: shape.cpu,
    memoryMb: shape.memoryMb,
    gpu: shape.gpu,
    // Other providers cost a little more than the service's own compute.
    hourlyPrice: Math.round(shape.price * (1 + i * 0.1)),
  })),
);

export function findRegion(id: string): Region | undefined {
  return regions.find((r) => r.id === id);
}

export function findZone(id: string): Zone | undefined {
  return zones.find((z) => z.id === id);
}

export function findInstanceType(id: string): InstanceType | undefined {
  return instanceTypes.find((t) => t.id === id);
}
