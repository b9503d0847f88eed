/**
 * The shape every adapter accepts for a bucket and a key, checked before any file or request is touched:
 * a key can never leave its bucket (`..`, absolute paths, odd characters) whatever the adapter.
 */

/** A logical bucket's name (lowercase letters, digits, `.` and `-`; as S3's rule, up to 63 characters). */
export const bucketNameShape = /^[a-z0-9][a-z0-9.-]{0,62}$/;
const keySegmentShape = /^[A-Za-z0-9._-]+$/;

/** The key's segments (`a/b/c.pdf` -> a, b, c.pdf); throws when the bucket or the key has another shape. */
export function checkedObjectAddress(bucket: string, key: string): string[] {
  if (!bucketNameShape.test(bucket)) throw new Error(`Invalid bucket name: ${bucket}`);
  const segments = key.split("/");
  if (segments.some((segment) => !keySegmentShape.test(segment) || segment === "." || segment === "..")) {
    throw new Error(`Invalid object key: ${key}`);
  }
  return segments;
}
