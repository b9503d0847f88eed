import Link from "next/link";
import type { ReactNode } from "react";
import { buttonClassName } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { CalendarIcon } from "@/components/ui/icons";
import { schoolRoles } from "@/components/shell/school-roles";
import type { ShellProfile } from "./profile";
import { PageHeader } from "./PageHeader";

/**
 * Templates, batches and classes are where staff prepare and mark exams. Someone without a staff role
 * who follows a link there reads why they cannot use it and where their own pages are, instead of a
 * staff screen whose every button the server would refuse.
 */
export function StaffOnly({ profile, title, children }: { profile: ShellProfile; title: string; children: ReactNode }) {
  const { isStaff, isStudent } = schoolRoles(profile);
  if (isStaff) return children;
  return (
    <div className="page">
      <PageHeader title={title} />
      <EmptyState icon={<CalendarIcon size={28} />} title="For your school’s staff">
        <p>
          Exam templates, marking batches and class lists are where teachers prepare and mark exams.{" "}
          {isStudent ? "As a student, you have your timetable and your settings here." : "Your account has no staff role: ask your school’s Markbook admin for one."}
        </p>
        <Link className={buttonClassName({})} href="/timetables">
          Go to my timetable
        </Link>
      </EmptyState>
    </div>
  );
}
