import type { TRPCDefaultErrorShape, TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";
import type { z } from "zod";
import type { AuthenticatedUser } from "../auth/authenticated-user";
import type { Db } from "../db/client";
import type { AnyOperation, OperationDefinition, OperationSet } from "../operations/define";
import { runOperation } from "../operations/run";
import { passwordChoosingProcedure, router, userProcedure } from "./init";

/**
 * The tRPC side of the operation catalogue: a domain's operations (server/operation-catalogue.ts) become the
 * procedures of its router, `userProcedure.input(…).output(…).query|mutation(…)` as they would be
 * written by hand, typed from the definitions so the client's hooks infer as before.
 */

type InputType<Input> = Input extends z.ZodType ? z.input<Input> : void;
type OutputType<Output, Result> = Output extends z.ZodType ? z.output<Output> : Result;
type Def<Input, Output, Result> = { input: InputType<Input>; output: OutputType<Output, Result>; meta: object; errorShape: TRPCDefaultErrorShape };

/** The procedure type of one operation, as tRPC would infer it from the hand-written builder chain. */
type ProcedureOf<Operation> =
  Operation extends OperationDefinition<infer Input, infer Output, infer _Mode, infer Kind, infer _Trpc, infer Result>
    ? Kind extends "query"
      ? TRPCQueryProcedure<Def<Input, Output, Result>>
      : TRPCMutationProcedure<Def<Input, Output, Result>>
    : never;

/** A domain's procedures: every operation except those said to be REST only (`trpc: false`). */
export type ProceduresOf<Operations extends OperationSet> = {
  [Name in keyof Operations as NonNullable<Operations[Name]["trpc"]> extends false ? never : Name]: ProcedureOf<Operations[Name]>;
};

function procedureOf(operation: AnyOperation) {
  let builder = operation.temporaryPassword ? passwordChoosingProcedure : userProcedure;
  if (operation.input) builder = builder.input(operation.input) as typeof builder;
  if (operation.output) builder = builder.output(operation.output);
  const resolve = ({ ctx, input }: { ctx: { db: Db; user: AuthenticatedUser }; input: unknown }) => runOperation(operation, ctx.db, ctx.user, input);
  return operation.kind === "query" ? builder.query(resolve) : builder.mutation(resolve);
}

/** The procedures of a domain's operations, to spread into its router (beside hand-written ones while a domain moves). */
export function proceduresOf<Operations extends OperationSet>(operations: Operations): ProceduresOf<Operations> {
  return Object.fromEntries(
    Object.entries(operations)
      .filter(([, operation]) => operation.trpc !== false)
      .map(([name, operation]) => [name, procedureOf(operation)]),
  ) as unknown as ProceduresOf<Operations>;
}

/** A domain's router, made of its operations only. */
export const operationsRouter = <Operations extends OperationSet>(operations: Operations) => router(proceduresOf(operations));
