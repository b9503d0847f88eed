/** A page-relative rectangle on one page of a template (as a response area): where a script's name is written. */
export interface NameBox {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where a script's name is written: the template's name box, or without one the top quarter of page 1,
 * where papers ask for the name. The name crop cuts it out for the owner; the marking screen of an
 * anonymous batch blurs it. Pure, so the browser uses the same rule.
 */
const DEFAULT_NAME_BOX: NameBox = { page: 1, x: 0, y: 0, width: 1, height: 0.25 };

export function nameBoxOf(template: { name_box: NameBox | null }): NameBox {
  return template.name_box ?? DEFAULT_NAME_BOX;
}

/**
 * Where the name is written on a submission's scan: the template's name box on its page for a script
 * filed from pile pages (its pages are the paper's); on a scan uploaded on its own, whose page order is
 * the uploader's, on its first page — the box if it is there, else the top quarter.
 */
export function nameBoxOnScan(scan: { nameBox: NameBox | null; filedFromPiles: boolean }): NameBox {
  const box = nameBoxOf({ name_box: scan.nameBox });
  return scan.filedFromPiles || box.page === 1 ? box : DEFAULT_NAME_BOX;
}
