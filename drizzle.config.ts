import { defineConfig } from "drizzle-kit";

// Only used to generate migrations from server/db/schema; the app applies them itself at start-up.
export default defineConfig({
  dialect: "postgresql",
  schema: "./server/db/schema/index.ts",
  out: "./drizzle",
  casing: "snake_case",
});
