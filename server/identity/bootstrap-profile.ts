import { z } from "zod";
import { membershipRole, userType } from "../db/schema";

/**
 * What GET /me/bootstrap answers: exactly the contract's bootstrap profile fields (docs/spec/classroom-api.md
 * "Bootstrap profile fields").
 */
export const bootstrapProfileOutput = z.object({
  id: z.uuid(),
  email: z.string(),
  user_type: z.enum(userType.enumValues),
  username: z.string(),
  full_name: z.string(),
  display_name: z.string(),
  user_db_name: z.string(),
  /** The graph database of the user's school; null without a school. */
  school_db_name: z.string().nullable(),
  school_id: z.uuid().nullable(),
});

/** The web app's profile: the bootstrap fields plus the caller's memberships (navigation, role checks). */
export const myProfileOutput = bootstrapProfileOutput.extend({
  memberships: z.array(
    z.object({ institute_id: z.uuid(), institute_name: z.string(), role: z.enum(membershipRole.enumValues) }),
  ),
});
