export type { RosterImportResult } from "@/server/identity/roster-plan";
