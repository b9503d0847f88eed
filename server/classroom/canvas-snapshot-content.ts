/**
 * The structure of a tldraw canvas snapshot as `getSnapshot(editor.store)` produces it:
 * `{ document: { store, schema }, session }`. The contract's rule 7
 * (docs/spec/classroom-api.md "Canvas snapshot read rules" 7) decides what counts as valid.
 */

export type CanvasSnapshot = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Why `value` is not a usable snapshot, or null when it is one. Valid
 * (docs/spec/classroom-api.md "Canvas snapshot read rules" 7): an object with
 * `document` and `session`, and either `document.schema` or a root `schemaVersion`. Beyond the letter of
 * the rule, `document` and `session` must be objects, since a tldraw client cannot load anything else.
 */
export function snapshotStructureProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return "the snapshot must be a JSON object";
  if (!("document" in value)) return "the snapshot has no document";
  if (!("session" in value)) return "the snapshot has no session";
  if (!isPlainObject(value.document)) return "document must be an object";
  if (!isPlainObject(value.session)) return "session must be an object";
  const hasSchema = "schema" in value.document && value.document.schema !== undefined && value.document.schema !== null;
  if (!hasSchema && !("schemaVersion" in value)) return "the snapshot needs document.schema (or a root schemaVersion)";
  if ("store" in value.document && !isPlainObject(value.document.store)) return "document.store must be an object";
  return null;
}

/**
 * The default content: an empty tldraw document with one page, its schema and a session on that page.
 * Schema sequence versions are those of tldraw 2.0 (store 4, document 2, page 1, shape 3 …), matching
 * the records above: a client migrates an older snapshot forward, but refuses one that claims versions
 * newer than it knows.
 */
export function emptyCanvasSnapshot(): CanvasSnapshot {
  return {
    document: {
      store: {
        "document:document": { gridSize: 10, name: "", meta: {}, id: "document:document", typeName: "document" },
        "page:page": { meta: {}, id: "page:page", name: "Page 1", index: "a1", typeName: "page" },
      },
      schema: {
        schemaVersion: 2,
        sequences: {
          "com.tldraw.store": 4,
          "com.tldraw.asset": 1,
          "com.tldraw.camera": 1,
          "com.tldraw.document": 2,
          "com.tldraw.instance": 22,
          "com.tldraw.instance_page_state": 5,
          "com.tldraw.page": 1,
          "com.tldraw.instance_presence": 5,
          "com.tldraw.pointer": 1,
          "com.tldraw.shape": 3,
        },
      },
    },
    session: {
      version: 0,
      currentPageId: "page:page",
      exportBackground: true,
      isFocusMode: false,
      isDebugMode: false,
      isToolLocked: false,
      isGridMode: false,
      pageStates: [{ pageId: "page:page", camera: { x: 0, y: 0, z: 1 }, selectedShapeIds: [], focusedGroupId: null }],
    },
  };
}
