/** GitHub's anchor for a Markdown heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
export const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replace(/ /g, "-");
