"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { BatchIcon, CalendarIcon, MarkedWorkIcon, PeopleIcon, SettingsIcon, TemplateIcon, UsersIcon } from "@/components/ui/icons";

type Audience = "everyone" | "staff" | "admins" | "students";

const items: readonly { href: string; label: string; Icon: typeof TemplateIcon; audience: Audience }[] = [
  { href: "/templates", label: "Templates", Icon: TemplateIcon, audience: "staff" },
  { href: "/batches", label: "Batches", Icon: BatchIcon, audience: "staff" },
  { href: "/my-work", label: "My work", Icon: MarkedWorkIcon, audience: "students" },
  { href: "/timetables", label: "Timetables", Icon: CalendarIcon, audience: "everyone" },
  { href: "/classes", label: "Classes", Icon: UsersIcon, audience: "staff" },
  { href: "/people", label: "People", Icon: PeopleIcon, audience: "admins" },
  { href: "/settings", label: "Settings", Icon: SettingsIcon, audience: "everyone" },
];

/**
 * The main navigation; the current area is marked with aria-current="page". Templates, batches and
 * classes are for staff; a student has their marked work, a timetable and settings; People is for school admins.
 */
export function AppNav({ isStaff = false, isSchoolAdmin = false, isStudent = false }: { isStaff?: boolean; isSchoolAdmin?: boolean; isStudent?: boolean }) {
  const pathname = usePathname();
  const shown = (audience: Audience) =>
    audience === "everyone" || (audience === "staff" ? isStaff : audience === "students" ? isStudent : isSchoolAdmin);
  return (
    <nav aria-label="Main">
      <ul className="nav-list">
        {items.filter((item) => shown(item.audience)).map(({ href, label, Icon }) => {
          const current = pathname === href || pathname.startsWith(`${href}/`);
          return (
            <li key={href}>
              <Link href={href} className="nav-link" aria-current={current ? "page" : undefined}>
                <Icon />
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
