"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { BatchIcon, CalendarIcon, PeopleIcon, SettingsIcon, TemplateIcon, UsersIcon } from "@/components/ui/icons";

const items = [
  { href: "/templates", label: "Templates", Icon: TemplateIcon },
  { href: "/batches", label: "Batches", Icon: BatchIcon },
  { href: "/timetables", label: "Timetables", Icon: CalendarIcon },
  { href: "/classes", label: "Classes", Icon: UsersIcon },
  { href: "/people", label: "People", Icon: PeopleIcon, adminsOnly: true },
  { href: "/settings", label: "Settings", Icon: SettingsIcon },
] as const;

/** The main navigation; the current area is marked with aria-current="page". People is for school admins. */
export function AppNav({ isSchoolAdmin = false }: { isSchoolAdmin?: boolean }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Main">
      <ul className="nav-list">
        {items.filter((item) => isSchoolAdmin || !("adminsOnly" in item)).map(({ href, label, Icon }) => {
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
