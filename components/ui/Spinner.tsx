/** A small decorative spinner; pair it with visible text or aria-busy on its container. */
export function Spinner() {
  return <span className="spinner" aria-hidden="true" />;
}
