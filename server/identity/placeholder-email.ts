/** The email of a person imported with a username only: sign-in needs one, and `.invalid` never delivers (RFC 2606). */
export const placeholderEmail = (username: string) => `${username}@${PLACEHOLDER_DOMAIN}`;

/** Whether an email is a placeholder: such a person signs in with their username. */
export const isPlaceholderEmail = (email: string) => email.toLowerCase().endsWith(`@${PLACEHOLDER_DOMAIN}`);

const PLACEHOLDER_DOMAIN = "no-email.invalid";
