import { Card } from "@/components/ui/Card";
import { buttonClassName } from "@/components/ui/Button";

/**
 * The batch's marked work as files (issue 35, items 4 and 5): every scanned student's marked script as a
 * PDF in one zip, and the class's feedback sheets (one cover per student, in the class list's order) to
 * print and hand out. Plain links: the browser downloads them as the server streams them.
 */
export function ReturnsDownloads({ batchId }: { batchId: string }) {
  return (
    <Card
      id="returns-downloads"
      className="returns-downloads"
      title="Marked scripts to hand back"
      description="Each student's scan with your marking and a cover sheet (marks per question, comments, what to revise). In an anonymous batch, files name scripts by number."
    >
      <div className="returns-downloads__links">
        <a className={buttonClassName({ variant: "secondary" })} href={`/api/exam/batches/${batchId}/marked-scripts`} download>
          Marked scripts (zip)
        </a>
        <a className={buttonClassName({ variant: "secondary" })} href={`/api/exam/batches/${batchId}/feedback-sheets`} download>
          Feedback sheets (PDF)
        </a>
      </div>
    </Card>
  );
}
