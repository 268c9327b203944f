// `codex-harness login` and `logout`: codex's own login through the SDK — ChatGPT in a browser,
// by device code, or an API key read from stdin (never from the command line, where `ps` shows
// it). codex stores the login in its home, as `codex login` does.
import { text } from "node:stream/consumers";
import type { Command } from "commander";
import { wholeNumber } from "./arguments.js";
import { addCodexFlags, type CodexFlags, withCodex } from "./codex-command.js";

interface LoginFlags extends CodexFlags {
  deviceCode?: boolean;
  apiKeyStdin?: boolean;
  timeout: number;
}

/** Adds `login` and `logout` to the program. */
export function addLoginCommands(program: Command): void {
  addCodexFlags(
    program
      .command("login")
      .description(
        "Log codex in: ChatGPT in a browser (the address to open is printed), --device-code, or --api-key-stdin",
      )
      .option("--device-code", "log in with a code entered on any device (no browser here)")
      .option("--api-key-stdin", "read an API key from stdin")
      .option(
        "--timeout <seconds>",
        "how long to wait for the browser or device login",
        wholeNumber(1),
        600,
      ),
  ).action(async (flags: LoginFlags) => {
    if (flags.deviceCode && flags.apiKeyStdin) {
      console.error("error: use --device-code or --api-key-stdin, not both.");
      process.exitCode = 1;
      return;
    }
    const apiKey = flags.apiKeyStdin ? (await text(process.stdin)).trim() : undefined;
    if (flags.apiKeyStdin && !apiKey) {
      console.error(
        "error: --api-key-stdin read nothing; pipe the key in: codex-harness login --api-key-stdin < key.txt",
      );
      process.exitCode = 1;
      return;
    }
    await withCodex(flags, async (codex) => {
      if (apiKey !== undefined) {
        await codex.login({ apiKey });
        console.log("Logged in with an API key.");
        return;
      }
      const login = flags.deviceCode
        ? await codex.loginWithDeviceCode()
        : await codex.loginWithChatGPT();
      console.log(
        "authUrl" in login
          ? `Open this address to log in: ${login.authUrl}`
          : `Open ${login.verificationUrl} on any device and enter the code ${login.userCode}`,
      );
      // Ctrl-C stops the login at codex, not only here.
      const stop = new AbortController();
      const onInterrupt = () => stop.abort(new Error("the login was interrupted"));
      process.once("SIGINT", onInterrupt);
      try {
        await login.wait({ signal: stop.signal, timeoutMs: flags.timeout * 1000 });
      } catch (error) {
        await login.cancel().catch(() => undefined);
        throw error;
      } finally {
        process.off("SIGINT", onInterrupt);
      }
      console.log("Logged in with ChatGPT.");
    });
  });

  addCodexFlags(
    program.command("logout").description("Log codex out: its stored login is removed"),
  ).action(async (flags: LoginFlags) => {
    await withCodex(flags, async (codex) => {
      await codex.logout();
      console.log("Logged out.");
    });
  });
}
