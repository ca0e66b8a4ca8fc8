// Which values of the environment the log's redaction is told (the registry is the process's:
// a file of its own).

import { redact } from "@cursor-wrap/logger";
import { describe, expect, it } from "vitest";
import { redactHeldSecrets } from "./known-secrets.js";

describe("redactHeldSecrets", () => {
  it("takes the process's credentials, and other secret-named values that look like one", () => {
    redactHeldSecrets(
      {
        CURSOR_API_KEY: "cursorKeyValue",
        CURSOR_WRAP_AUTH_CI: "profileKeyValue",
        CURSOR_WRAP_AUTH_CI_FILE: "/run/secrets/cursor-key",
        GITHUB_TOKEN: "ghs_0123456789abcdefghijABCDEFGHIJ",
        NPM_TOKEN: "npm-0123456789abcdefghij",
        // Defaults and paths: ordinary words of a log, never taken.
        POSTGRES_PASSWORD: "postgres",
        JWT_SECRET: "development",
        MYSQL_ROOT_PASSWORD: "password",
        GOOGLE_APPLICATION_CREDENTIALS: "/home/ci/keys/service-account-2024.json",
        DEPLOY_TOKEN: "not a credential, a sentence 42",
        HOME: "/home/ci",
      },
      ["--api-key", "flagGivenKey42", "-H", "Authorization: Bearer headerToken42"],
    );
    for (const secret of [
      "cursorKeyValue",
      "profileKeyValue",
      "ghs_0123456789abcdefghijABCDEFGHIJ",
      "npm-0123456789abcdefghij",
      "flagGivenKey42",
      "headerToken42",
    ]) {
      expect(redact(`said ${secret} here`), secret).toBe("said [REDACTED] here");
    }
    for (const text of [
      "psql -U postgres -h localhost",
      "NODE_ENV=development",
      "type your password",
      "read /home/ci/keys/service-account-2024.json",
      "/run/secrets/cursor-key",
    ]) {
      expect(redact(text), text).toBe(text);
    }
  });
});
