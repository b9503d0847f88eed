import { buttonClassName } from "@/components/ui/Button";

/** The student's own marked script as a PDF (cover sheet, then the scan with the marking drawn on it). */
export function ScriptPdfLink({ submissionId }: { submissionId: string }) {
  return (
    <p className="my-script__download">
      <a className={buttonClassName({ variant: "secondary" })} href={`/api/me/scripts/${submissionId}/marked-pdf`} download>
        Download as PDF
      </a>
    </p>
  );
}
