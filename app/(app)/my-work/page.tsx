import type { Metadata } from "next";
import { PageHeader } from "@/components/shell/PageHeader";
import { MyScripts } from "@/components/student/MyScripts";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "My work" };

/** A student's marked scripts, once their teacher releases them. */
export default async function MyWorkPage() {
  await requireSignedInProfile("/my-work");
  return (
    <div className="page">
      <PageHeader title="My work">Your marked exam scripts, once your teacher releases the results: your marks, the marker&apos;s notes and what to revise.</PageHeader>
      <MyScripts />
    </div>
  );
}
