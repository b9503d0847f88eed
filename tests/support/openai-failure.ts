import OpenAI from "openai";

/** What a failed call of the openai client says: status and the contract's error body. */
export async function openaiFailure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OpenAI.APIError) {
      const body = error.error as { message?: string; type?: string; code?: string; param?: string | null } | undefined;
      return { status: error.status, type: body?.type, code: body?.code, param: body?.param, message: body?.message, headers: error.headers };
    }
    throw error;
  }
  throw new Error("expected the call to fail");
}
