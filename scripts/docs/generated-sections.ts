/** The hand-written pages with generated sections, and what writes each section. */
import { readFileSync } from "node:fs";
import { alertsPagePath, alertsSections } from "./alerts.ts";
import { metricsPagePath, metricsSections } from "./metrics.ts";
import { installPagePath, rbacSections } from "./rbac.ts";
import { type Section, withSections } from "./sections.ts";

export const sectionPages: readonly { path: string; sections: readonly Section[] }[] = [
  { path: installPagePath, sections: rbacSections },
  { path: metricsPagePath, sections: metricsSections },
  { path: alertsPagePath, sections: alertsSections },
];

/** The page as `npm run generate` leaves it: its generated sections rewritten from the code. */
export function renderSectionPage(path: string, sections: readonly Section[]): string {
  return withSections(readFileSync(path, "utf8"), sections);
}
