"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { postForDownload } from "@/components/ui/download-file";
import { SelectField, TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Status } from "@/components/ui/Status";
import { useOnOpen } from "@/components/ui/use-on-open";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { plural } from "@/lib/text/plural";

type Choice = "class" | "year" | "selection";

interface SignInSlipsDialogProps {
  open: boolean;
  onClose: () => void;
  /** The PDF is downloading: what to tell the admin on the page. */
  onPrinted: (summary: string) => void;
  /** A class chosen beforehand (the class's own page, or the class filter of People). */
  classId?: string;
  /** People ticked in the list: offered as a third choice. */
  selection?: string[];
}

interface SlipsRequest {
  class_id?: string;
  year_group?: string;
  user_ids?: string[];
  reissue: boolean;
}

/** POST /api/school/sign-in-slips with the session cookie: the PDF saved under the server's name, or the server's sentence. */
async function downloadSignInSlips(request: SlipsRequest): Promise<{ fileName: string; slips: number }> {
  const { fileName, headers } = await postForDownload("/api/school/sign-in-slips", request, {
    failure: "The slips could not be made just now. Try again in a moment: no password was changed.",
    fallbackName: "sign-in-slips.pdf",
  });
  return { fileName, slips: Number(headers.get("x-markbook-slips") ?? 0) };
}

/**
 * "Sign-in slips": for a class, a year group or the people ticked, one PDF with a slip per person (their
 * name, class, email and a new temporary password) to cut out and hand over. By default only people
 * without a password get one; a clear option gives everyone chosen a new one, replacing theirs.
 */
export function SignInSlipsDialog({ open, onClose, onPrinted, classId: initialClassId, selection = [] }: SignInSlipsDialogProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const defaultChoice: Choice = selection.length > 0 ? "selection" : "class";
  const [choice, setChoice] = useState<Choice>(defaultChoice);
  const [classId, setClassId] = useState(initialClassId ?? "");
  const [yearGroup, setYearGroup] = useState("");
  const [reissue, setReissue] = useState(false);
  const classes = useQuery({ ...trpc.classes.list.queryOptions(), enabled: open });
  // Each opening starts from what the page has chosen now: the people ticked, or its class.
  useOnOpen(open, () => {
    setChoice(defaultChoice);
    setClassId(initialClassId ?? "");
    setYearGroup("");
    setReissue(false);
  });

  const chosen: Omit<SlipsRequest, "reissue"> | null =
    choice === "class" ? (classId ? { class_id: classId } : null) : choice === "year" ? (yearGroup.trim() ? { year_group: yearGroup.trim() } : null) : selection.length > 0 ? { user_ids: selection } : null;
  const preview = useQuery({ ...trpc.people.signInSlipsPreview.queryOptions({ ...(chosen ?? {}) }), enabled: open && chosen !== null });
  const download = useMutation({ mutationFn: downloadSignInSlips });

  function close() {
    download.reset();
    onClose();
  }

  const counts = chosen ? preview.data : undefined;
  const slips = counts ? counts.without_password + (reissue ? counts.with_password : 0) : null;

  function submit() {
    if (!chosen) return;
    download.mutate(
      { ...chosen, reissue },
      {
        onSuccess: ({ fileName, slips: printed }) => {
          onPrinted(`${fileName} is downloading: ${plural(printed, "slip")}. Each person chooses their own password when they first sign in.`);
          void queryClient.invalidateQueries({ queryKey: trpc.people.pathKey() });
          close();
        },
      },
    );
  }

  return (
    <FormDialog
      open={open}
      title="Sign-in slips"
      description="One PDF with a slip per person: their name, class, the address to sign in at, their email and a new temporary password. Print it, cut along the dashed lines and hand the slips out."
      submitLabel="Download slips"
      busyLabel="Making the slips…"
      busy={download.isPending}
      onSubmit={submit}
      onClose={close}
      canSubmit={slips !== null && slips > 0}
    >
      <fieldset className="segmented">
        <legend>Slips for</legend>
        <label className="segmented__option">
          <input type="radio" name="slips-for" checked={choice === "class"} onChange={() => setChoice("class")} />A class
        </label>
        <label className="segmented__option">
          <input type="radio" name="slips-for" checked={choice === "year"} onChange={() => setChoice("year")} />A year group
        </label>
        {selection.length > 0 ? (
          <label className="segmented__option">
            <input type="radio" name="slips-for" checked={choice === "selection"} onChange={() => setChoice("selection")} />
            {plural(selection.length, "person ticked", "people ticked")}
          </label>
        ) : null}
      </fieldset>
      {choice === "class" ? (
        <SelectField
          label="Class"
          value={classId}
          onChange={(event) => setClassId(event.currentTarget.value)}
          options={[{ value: "", label: classes.isPending ? "Loading classes…" : "Choose a class" }, ...(classes.data?.classes ?? []).map((row) => ({ value: row.id, label: row.name }))]}
          hint="The class's students."
        />
      ) : choice === "year" ? (
        <TextField label="Year group" value={yearGroup} onChange={(event) => setYearGroup(event.currentTarget.value)} placeholder="Year 7" hint="As your class lists name it; capitals do not matter." />
      ) : null}
      <label className="checkbox">
        <input type="checkbox" checked={reissue} onChange={(event) => setReissue(event.currentTarget.checked)} />
        Also people who already have a password: give them new ones
      </label>
      {chosen === null ? null : preview.isPending ? (
        <Loading>Counting…</Loading>
      ) : preview.isError ? (
        <LoadFailed what="Who gets a slip" error={preview.error} onRetry={() => preview.refetch()} />
      ) : (
        <>
          <p className="muted" role="status">
            {slips === 0
              ? counts!.with_password > 0
                ? `Everyone chosen has a password already (${plural(counts!.with_password, "person", "people")}).`
                : "Nobody is chosen: no active people here (you never get a slip of your own)."
              : `The PDF will have ${plural(slips!, "slip")}, ten to a page, sorted by class and surname.`}
            {!reissue && counts!.with_password > 0 && slips! > 0 ? ` ${plural(counts!.with_password, "person", "people")} with a password get none.` : ""}
          </p>
          {reissue && counts!.with_password > 0 ? (
            <Status tone="warning" title={`This replaces the passwords of ${plural(counts!.with_password, "person", "people")}`}>
              <p>They can no longer sign in with the password they have: only with their new slip, and then they choose their own again.</p>
            </Status>
          ) : null}
        </>
      )}
      {download.isError ? (
        <Status tone="error" title="The slips were not made">
          {errorMessage(download.error)}
        </Status>
      ) : null}
    </FormDialog>
  );
}
