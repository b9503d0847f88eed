/** Who a request or session is, once its token or cookie is verified (server/auth/authenticate.ts, session.ts). */
export interface AuthenticatedUser {
  id: string;
  /** A session whose user holds a temporary password from an admin: it may only choose their own. */
  mustChoosePassword?: true;
}
