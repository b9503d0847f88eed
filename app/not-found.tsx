import Link from "next/link";
import { Wordmark } from "@/components/ui/Wordmark";
import { buttonClassName } from "@/components/ui/Button";

export const metadata = { title: "Page not found" };

export default function NotFound() {
  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <div className="auth-page__inner">
        <div className="card auth-card">
          <div className="auth-card__header">
            <Wordmark />
            <h1>Page not found</h1>
            <p>There is nothing at this address. It may have moved, or the link may be mistyped.</p>
          </div>
          <Link href="/" className={buttonClassName({ variant: "primary", block: true })}>
            Go to Markbook
          </Link>
        </div>
      </div>
    </main>
  );
}
