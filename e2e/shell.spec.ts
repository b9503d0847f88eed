import { expect, test } from "@playwright/test";
import { DEMO_PASSWORD, fillSignIn, openArea, screenshot, signIn, TEACHER_EMAIL } from "./helpers";

test.describe("signed out", () => {
  test("the front door and the signed-in area lead to sign-in", async ({ page }) => {
    await page.goto("/");
    await expect(page).toHaveURL(/\/signin/);
    await page.goto("/templates");
    await expect(page).toHaveURL(/\/signin/);
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  });

  test("a wrong password says so, and signing in still works afterwards", async ({ page }, testInfo) => {
    await page.goto("/signin");
    await screenshot(page, testInfo, "signin");
    await fillSignIn(page, TEACHER_EMAIL, "not-the-password");
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("Email, username or password is incorrect.");
    await expect(page).toHaveURL(/\/signin/);
    // The password is cleared and focused for the next try; the email stays.
    await expect(page.getByLabel("Password")).toBeFocused();
    await expect(page.getByLabel("Password")).toHaveValue("");
    await expect(page.getByLabel("Email")).toHaveValue(TEACHER_EMAIL);
    await screenshot(page, testInfo, "signin-error");

    await page.getByLabel("Password").fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/templates$/);
    // The browser is now a known device of the account: its attempts are counted on their own.
    const knownDevice = (await page.context().cookies()).find((cookie) => cookie.name === "markbook.known-device");
    expect(knownDevice).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
  });

  test("what is typed before the page's scripts have run is kept (a slow phone)", async ({ page }) => {
    // Hold the page's scripts back until both fields are typed into, as on a slow connection.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/_next/static/chunks/**", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/signin", { waitUntil: "commit" });
    await page.getByLabel("Email").fill(TEACHER_EMAIL);
    await page.getByLabel("Password").fill(DEMO_PASSWORD);
    // Not sent natively meanwhile: the button waits for the page.
    await expect(page.getByRole("button", { name: "Sign in" })).toBeDisabled();
    release();
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/templates$/);
  });

  test("an unknown email gets the same message as a wrong password", async ({ page }) => {
    await page.goto("/signin");
    await fillSignIn(page, "nobody@northfield.example", DEMO_PASSWORD);
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("Email, username or password is incorrect.");
  });

  test("guessing passwords is slowed down: the page says when to try again, and the answer is a 429", async ({ page }, testInfo) => {
    // An email nobody has: the answers must not tell it from an account's.
    const email = `guesser.${Date.now()}@northfield.example`;
    await page.goto("/signin");
    const alert = page.getByRole("main").getByRole("alert");
    // Five failures are free; each one after waits twice as long (1 s, 2 s, 4 s …), so a person typing
    // wrong passwords meets the wait within a few more tries, however slow the machine.
    let answer;
    for (let attempt = 1; attempt <= 14; attempt += 1) {
      const response = page.waitForResponse((candidate) => candidate.url().includes("/api/auth/callback/credentials"));
      await fillSignIn(page, email, `guess number ${attempt}`);
      answer = await response;
      if (answer.status() === 429) break;
      await expect(alert).toHaveText("Email, username or password is incorrect.");
    }
    expect(answer?.status()).toBe(429);
    expect(Number(answer?.headers()["retry-after"])).toBeGreaterThan(0);
    await expect(alert).toHaveText(/^Too many sign-in attempts: try again in \d+ (seconds?|minutes?) \(after \d\d:\d\d UTC\)\.$/);
    await expect(page).toHaveURL(/\/signin/);
    await screenshot(page, testInfo, "signin-throttled");
  });

  test("after signing in the user lands on the page they asked for", async ({ page }) => {
    await page.goto(`/signin?callbackUrl=${encodeURIComponent("/settings")}`);
    await fillSignIn(page, TEACHER_EMAIL, DEMO_PASSWORD);
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  });

  test("a callback to another site is ignored", async ({ page }) => {
    await page.goto(`/signin?callbackUrl=${encodeURIComponent("https://evil.example/phish")}`);
    await fillSignIn(page, TEACHER_EMAIL, DEMO_PASSWORD);
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/templates$/);
  });
});

test("a teacher signs in and sees the shell with the Templates list", async ({ page }, testInfo) => {
  await signIn(page);
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const area of ["Templates", "Batches", "Timetables", "Classes", "Settings"]) {
    await expect(nav.getByRole("link", { name: area })).toBeVisible();
  }
  await expect(nav.getByRole("link", { name: "Templates" })).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("link", { name: "Settings" })).not.toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("heading", { level: 1, name: "Templates" })).toBeVisible();
  // The seeded demo school has one ready template.
  await expect(page.getByRole("main").getByRole("link", { name: "Mathematics Paper 1 (Non-calculator), June 2026 mock" })).toBeVisible();
  await expect(page.getByRole("main").getByRole("button", { name: "New template" })).toBeVisible();
  // The account at the bottom of the navigation: who, which role, which school, and a way out.
  const banner = page.getByRole("banner");
  await expect(banner).toContainText("Teacher");
  await expect(banner).toContainText("Northfield");
  await expect(banner.getByRole("button", { name: "Sign out" })).toBeVisible();
  await screenshot(page, testInfo, "templates");

  await nav.getByRole("link", { name: "Batches" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Batches" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Batches" })).toHaveAttribute("aria-current", "page");
  await nav.getByRole("link", { name: "Timetables" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "My timetable" })).toBeVisible();
});

test("keyboard only: skip link, then Settings from the navigation", async ({ page }) => {
  await signIn(page);
  await page.goto("/templates");

  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to main content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();

  await page.goto("/templates");
  const settings = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" });
  for (let presses = 0; presses < 12; presses++) {
    await page.keyboard.press("Tab");
    if (await settings.evaluate((link) => link === document.activeElement)) break;
  }
  await expect(settings).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  await expect(settings).toHaveAttribute("aria-current", "page");
});

test("personal access token: created once, works as a Bearer token, refused after revoking", async ({
  page,
  context,
  request,
}, testInfo) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page);
  await openArea(page, "Settings");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();

  // The profile.
  const profile = page.getByRole("region", { name: "Profile" });
  await expect(profile).toContainText(TEACHER_EMAIL);
  await expect(profile).toContainText("Teacher");
  await expect(profile).toContainText("Northfield");

  // A name is required.
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Give the token a name")).toBeVisible();
  await expect(page.getByLabel("Token name")).toBeFocused();

  const name = `Grading script ${Date.now()}`;
  await page.getByLabel("Token name").fill(name);
  await page.getByLabel("Lifetime").selectOption("7");
  await page.getByRole("button", { name: "Create token" }).click();

  const field = page.getByLabel(`Token “${name}”`);
  await expect(field).toBeVisible();
  await expect(field).toHaveAttribute("readonly", "");
  const token = await field.inputValue();
  expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  await expect(page.getByText("This is the only time")).toBeVisible();

  await page.getByRole("button", { name: "Copy", exact: true }).click();
  await expect(page.getByText("Copied to the clipboard.")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

  const row = page.getByRole("row", { name: new RegExp(name) });
  await expect(row).toContainText("Active");
  await expect(page.locator("pre")).toContainText(`curl -H "Authorization: Bearer <token>" http://localhost:`);
  await screenshot(page, testInfo, "settings-token", true);

  // The token works from outside the browser (no cookies in `request`).
  const authorized = await request.get("/me/bootstrap", { headers: { Authorization: `Bearer ${token}` } });
  expect(authorized.status()).toBe(200);
  expect((await authorized.json()).email).toBe(TEACHER_EMAIL);

  // Revoke, with a confirmation that can be cancelled.
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  const dialog = page.getByRole("dialog", { name: "Revoke this token?" });
  await expect(dialog).toBeVisible();
  await screenshot(page, testInfo, "settings-revoke-dialog");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText("Active");

  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText("Revoked");
  await expect(row.getByRole("button")).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: "was revoked" })).toBeVisible();

  const refused = await request.get("/me/bootstrap", { headers: { Authorization: `Bearer ${token}` } });
  expect(refused.status()).toBe(401);

  // Shown once: after a reload the token is listed, but its value is nowhere on the page.
  await page.reload();
  await expect(page.getByRole("row", { name: new RegExp(name) })).toContainText("Revoked");
  expect(await page.content()).not.toContain(token);
});

test("sign out returns to sign-in, and the signed-in area is closed again", async ({ page }) => {
  await signIn(page);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  await page.goto("/templates");
  await expect(page).toHaveURL(/\/signin/);
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/signin/);
});

test.describe("tablet width", () => {
  test.use({ viewport: { width: 820, height: 1180 } });

  test("the navigation becomes a top bar above the page", async ({ page }, testInfo) => {
    await signIn(page);
    const nav = page.getByRole("navigation", { name: "Main" });
    const main = page.getByRole("main");
    const navBox = (await nav.boundingBox())!;
    const mainBox = (await main.boundingBox())!;
    expect(navBox.y + navBox.height).toBeLessThanOrEqual(mainBox.y + 1);
    expect(mainBox.x).toBeLessThan(1);
    expect(mainBox.width).toBeGreaterThan(800);
    for (const area of ["Templates", "Batches", "Timetables", "Classes", "Settings"]) {
      await expect(nav.getByRole("link", { name: area })).toBeInViewport();
    }
    await expect(page.getByRole("button", { name: "Sign out" })).toBeInViewport();
    await screenshot(page, testInfo, "tablet-templates");
    await nav.getByRole("link", { name: "Settings" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
    await screenshot(page, testInfo, "tablet-settings", true);
  });
});
