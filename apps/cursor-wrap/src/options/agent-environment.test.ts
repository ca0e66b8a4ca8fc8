import { describe, expect, it } from "vitest";
import { agentBaseEnvironment } from "./agent-environment.js";

describe("agentBaseEnvironment", () => {
  it("keeps the caller's environment but every profile's credentials and the webhook", () => {
    expect(
      agentBaseEnvironment({
        PATH: "/usr/bin",
        CURSOR_API_KEY: "mine",
        CURSOR_WRAP_AUTH_WORK: "k1",
        CURSOR_WRAP_AUTH_SPARE_FILE: "/keys/spare",
        CURSOR_WRAP_NOTIFY: "https://hooks.example/secret",
        CURSOR_WRAP_ON_VERDICT: "notify --token secret",
        CURSOR_WRAP_IDLE_TIMEOUT: "5m",
      }),
    ).toEqual({ PATH: "/usr/bin", CURSOR_API_KEY: "mine", CURSOR_WRAP_IDLE_TIMEOUT: "5m" });
  });
});
