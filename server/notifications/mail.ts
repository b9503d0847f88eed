import nodemailer from "nodemailer";
import { env } from "../env";

/**
 * E-mail to people, through the school's SMTP server (`SMTP_URL`), with nodemailer: the library every
 * Node project uses for SMTP (pooling, TLS, authentication), which next-auth already depends on.
 * Without SMTP_URL there is no mailer: callers then send nothing and fail nothing.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** A mailer that sends through the SMTP server at `url`, from `from`. */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url, { from });
  return {
    async send({ to, subject, text }) {
      await transport.sendMail({ to, subject, text });
    },
  };
}

let configured: Mailer | null | undefined;

/** The configured mailer, or null when no SMTP server is configured. */
export function mailer(): Mailer | null {
  if (configured === undefined) {
    const { SMTP_URL, MAIL_FROM } = env();
    configured = SMTP_URL ? smtpMailer(SMTP_URL, MAIL_FROM) : null;
  }
  return configured;
}

/** Replaces the configured mailer (tests point it at their own SMTP server; null: none). */
export function setMailer(next: Mailer | null): void {
  configured = next;
}
