import { writePersonalNodesJob } from "../graph/personal-node";
import { projectTemplateJob } from "../graph/projection-job";
import { readScanPileJob } from "../exam/intake/pile-job";
import { readAnswersJob } from "../exam/answers/read-job";
import type { JobKind } from "../jobs/kind";
import { studentNoticeJob } from "../notifications/student-notices";

/** Every kind of background job this version of Markbook runs; a worker claims only these. */
export const allJobKinds: readonly JobKind<unknown>[] = [projectTemplateJob, readScanPileJob, readAnswersJob, writePersonalNodesJob, studentNoticeJob];
