import { createEventsFormatter } from "./events.js";
import { createJsonFormatter } from "./json.js";
import { createStreamJsonFormatter } from "./stream-json.js";
import { createTextFormatter } from "./text.js";
import type { Formatter, FormatterOptions, Output, OutputFormat } from "./types.js";

/** Create the renderer for an output format. */
export function createFormatter(
  format: OutputFormat,
  out: Output,
  options: FormatterOptions = {},
): Formatter {
  switch (format) {
    case "stream-json":
      return createStreamJsonFormatter(out);
    case "json":
      return createJsonFormatter(out);
    case "text":
      return createTextFormatter(out, options);
    case "events":
      return createEventsFormatter(out, options.contract);
    default: {
      const unknown: never = format;
      throw new TypeError(`unknown output format ${JSON.stringify(unknown)}`);
    }
  }
}
