import { describe, expect, it } from "vitest";
import { authProfileVariable, loadAuthProfiles } from "./auth-profiles.js";

describe("loadAuthProfiles", () => {
  it("reads each profile's key from its variable, or from the file its _FILE variable names", () => {
    const profiles = loadAuthProfiles(
      ["work", "spare-2"],
      { CURSOR_WRAP_AUTH_WORK: " key-one \n", CURSOR_WRAP_AUTH_SPARE_2_FILE: "/secrets/spare" },
      (path) => {
        expect(path).toBe("/secrets/spare");
        return "key-two\n";
      },
    );
    expect([...profiles]).toEqual([
      ["work", { CURSOR_API_KEY: "key-one", CURSOR_AUTH_TOKEN: undefined }],
      ["spare-2", { CURSOR_API_KEY: "key-two", CURSOR_AUTH_TOKEN: undefined }],
    ]);
    expect(authProfileVariable("spare-2")).toBe("CURSOR_WRAP_AUTH_SPARE_2");
  });

  it("names the variables, never a value, when a profile has no credentials", () => {
    expect(() => loadAuthProfiles(["work"], { CURSOR_WRAP_AUTH_WORK: "  " })).toThrow(
      'auth profile "work" has no credentials: set CURSOR_WRAP_AUTH_WORK to an API key, or CURSOR_WRAP_AUTH_WORK_FILE to a file holding one',
    );
    expect(() =>
      loadAuthProfiles(["work"], { CURSOR_WRAP_AUTH_WORK_FILE: "/nope" }, () => {
        throw Object.assign(new Error("secret-path"), { code: "ENOENT" });
      }),
    ).toThrow(
      'auth profile "work": cannot read the file CURSOR_WRAP_AUTH_WORK_FILE names (ENOENT)',
    );
  });
});
