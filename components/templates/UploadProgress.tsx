/** A labelled progress bar for one upload. */
export function UploadProgress({ fraction, label }: { fraction: number; label: string }) {
  const percent = Math.round(Math.min(1, Math.max(0, fraction)) * 100);
  return (
    <div className="upload-progress">
      <div className="upload-progress__text">
        <span>{percent < 100 ? `Uploading ${label}` : `Uploaded ${label}`}</span>
        <span aria-hidden="true">{percent}%</span>
      </div>
      <div className="upload-progress__track" role="progressbar" aria-label={`Upload of ${label}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div className="upload-progress__bar" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}
