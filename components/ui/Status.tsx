import type { ReactNode } from "react";
import { AlertIcon, CheckCircleIcon, InfoIcon } from "./icons";

type StatusTone = "info" | "success" | "warning" | "error";

interface StatusProps {
  tone: StatusTone;
  title?: ReactNode;
  children?: ReactNode;
  /** "alert" interrupts (errors the user must act on); "status" is announced politely. Default by tone. */
  role?: "alert" | "status" | "none";
  action?: ReactNode;
  id?: string;
}

const icons = { info: InfoIcon, success: CheckCircleIcon, warning: AlertIcon, error: AlertIcon };

/** Inline status message: the quiet confirmation or the error next to what it is about. */
export function Status({ tone, title, children, role, action, id }: StatusProps) {
  const Icon = icons[tone];
  const ariaRole = role ?? (tone === "error" ? "alert" : "status");
  return (
    <div className={`status status--${tone}`} role={ariaRole === "none" ? undefined : ariaRole} id={id}>
      <Icon size={18} className="status__icon" />
      <div className="status__body">
        {title ? <p className="status__title">{title}</p> : null}
        {children ? <div>{children}</div> : null}
      </div>
      {action}
    </div>
  );
}
