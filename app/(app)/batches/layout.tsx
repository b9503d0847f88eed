import { staffOnlyLayout } from "../staff-only-layout";

export default staffOnlyLayout("Batches");
