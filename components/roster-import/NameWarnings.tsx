import { Status } from "@/components/ui/Status";

/** The import's warnings about names (a part that maps to nothing), shown on the column screen and the preview. */
export function NameWarnings({ warnings }: { warnings: readonly string[] }) {
  if (warnings.length === 0) return null;
  return (
    <Status tone="warning" title="Check the names">
      <ul>
        {warnings.map((warning) => (
          <li key={warning}>{warning}</li>
        ))}
      </ul>
    </Status>
  );
}
