import Link from "next/link";

/** The Markbook logo mark and name. A link home when `href` is given. */
export function Wordmark({ href }: { href?: string }) {
  const content = (
    <>
      <svg width="28" height="28" viewBox="0 0 28 28" aria-hidden="true" focusable="false">
        <rect width="28" height="28" rx="7" fill="#1f5fa8" />
        <path d="M8 6.5h9l3 3v12H8z" fill="#fff" />
        <path d="m11 15.5 2.3 2.3 4.2-4.8" fill="none" stroke="#1f5fa8" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
      <span>Markbook</span>
    </>
  );
  return href ? (
    <Link href={href} className="wordmark">
      {content}
    </Link>
  ) : (
    <span className="wordmark">{content}</span>
  );
}
