/**
 * Generated sections inside hand-written pages: the text between
 * `<!-- generated: ID … -->` and `<!-- end generated: ID -->` is replaced by what the code says,
 * and the rest of the page is left as it is.
 */

export interface Section {
  id: string;
  render: () => string;
}

const start = (id: string) =>
  `<!-- generated: ${id} (\`npm run generate\` writes this part; do not edit) -->`;
const end = (id: string) => `<!-- end generated: ${id} -->`;

/** The page with each section's text replaced; throws when a page lacks a section's markers. */
export function withSections(page: string, sections: readonly Section[]): string {
  let out = page;
  for (const section of sections) {
    const from = out.indexOf(start(section.id));
    const to = out.indexOf(end(section.id));
    if (from === -1 || to === -1 || to < from) {
      throw new Error(
        `the page has no generated section ${section.id}: add ${start(section.id)} and ${end(section.id)}`,
      );
    }
    out = `${out.slice(0, from)}${start(section.id)}\n\n${section.render().trim()}\n\n${out.slice(to)}`;
  }
  return out;
}
