import { z } from "zod";

/** Who gave a mark (exam_mark_entries.marked_by): a teacher (any person, through any edge), the tick reader, or the blank rule. */
export const markProvenance = z.enum(["teacher", "ticks", "blank"]);
