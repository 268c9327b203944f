// `codex-harness scripted-model`: a ScriptedModel that keeps answering, on a fixed port, so a space
// (examples/spaces-project's `offline` target) can point codex at it: run, worker and submit with
// no account and no network. "run: <command>" makes it run that command (asking for approval).
import type { Command } from "commander";
import { inputItems, inputTexts, type RecordedRequest, toolOutputs } from "../testing/recorded.js";
import {
  execCommand,
  reply,
  type ScriptedOutputItem,
  type ScriptedResponse,
} from "../testing/script.js";
import { portNumber } from "./arguments.js";

/** The port the example space's `[codex.config]` names. */
export const TRY_OUT_PORT = 4545;

/**
 * The try-out model's answer: after a command, what became of it; to "run: <command>", that
 * command (escalated, so codex asks for approval unless a policy decides); to anything else, an
 * echo that says how to ask for a command.
 */
export function tryOutAnswer(request: RecordedRequest): ScriptedResponse | ScriptedOutputItem {
  if (inputItems(request).at(-1)?.type === "function_call_output") {
    const output = toolOutputs(request).at(-1);
    if (output?.exitCode === undefined) {
      return reply(`The command did not run: ${firstLines(output?.output ?? "", 1)}`);
    }
    // codex heads a command's output for the model (chunk id, wall time…) up to "Output:".
    const text = output.output.split(/^Output:\n/m).at(-1) ?? "";
    return reply(
      `The command exited ${output.exitCode}. Its output began:\n\n\`\`\`\n${firstLines(text, 10)}\n\`\`\``,
    );
  }
  const prompt = (inputTexts(request).at(-1) ?? "").trim();
  const command = /^run:\s*([\s\S]+)$/.exec(prompt)?.[1]?.trim();
  if (command) {
    return execCommand(command, { escalated: true, justification: "You asked me to run it." });
  }
  return reply(
    `(The scripted model, offline.) You said: ${JSON.stringify(prompt)}. Say "run: <command>" and I run that command.`,
  );
}

function firstLines(text: string, count: number): string {
  return text.split("\n").slice(0, count).join("\n").trimEnd();
}

/** Adds `scripted-model` to the program. */
export function addScriptedModelCommand(program: Command): void {
  program
    .command("scripted-model")
    .description(
      'Serve a scripted model on 127.0.0.1 that keeps answering (try spaces, run, worker and submit offline; "run: <command>" runs one)',
    )
    .option("--port <port>", "port on 127.0.0.1", portNumber, TRY_OUT_PORT)
    .action(async (flags: { port: number }) => {
      const { ScriptedModel } = await import("../testing/scripted-model.js");
      const model = new ScriptedModel({
        port: flags.port,
        fallback: (request) => {
          const answer = tryOutAnswer(request);
          console.error(`scripted-model: answered request ${request.responseNumber}`);
          return answer;
        },
      });
      await model.listen();
      // stdout: the base URL only (data); the rest is for the person.
      console.log(model.url);
      console.error(
        `scripted-model: answering at ${model.url} as model "${model.model}" (provider "${model.providerId}"); Ctrl-C stops.`,
      );
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await model.close();
    });
}
