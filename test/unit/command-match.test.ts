// Unit tests of the shell splitter and the exec rule matching behind fromPermissions.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  allowProgram,
  commandText,
  type ExecRules,
  isAllowed,
  isDenied,
  judgeCommands,
  matchesDeny,
  simpleCommandsOf,
} from "../../src/approvals/command-match.js";
import {
  type SimpleCommand,
  shellScriptOf,
  splitShellScript,
  wrappedScriptOf,
} from "../../src/shell-split.js";

/** The words of each simple command. */
const words = (script: string): string[][] => splitShellScript(script).map((c) => c.words);
const opaque = (script: string): boolean[] => splitShellScript(script).map((c) => c.opaque);
const cmd = (...w: string[]): SimpleCommand => ({
  assignments: [],
  words: w,
  redirects: [],
  opaque: false,
});
const rules = (partial: Partial<ExecRules>): ExecRules => ({
  commands: [],
  patterns: [],
  deny: [],
  ...partial,
});
const judge = (script: string, partial: Partial<ExecRules>) =>
  judgeCommands(splitShellScript(script), rules(partial));

describe("splitShellScript: tokens", () => {
  it("splits words on blanks", () => {
    assert.deepEqual(words("ls  -la\tsrc"), [["ls", "-la", "src"]]);
  });

  it("keeps single-quoted text literally", () => {
    assert.deepEqual(words(`echo 'a "b" $(c) \\d'`), [["echo", 'a "b" $(c) \\d']]);
  });

  it('unescapes \\ $ ` " in double quotes and keeps other backslashes', () => {
    assert.deepEqual(words(`echo "a \\"b\\" \\$x \\n"`), [["echo", 'a "b" $x \\n']]);
  });

  it("joins adjacent quoted and unquoted parts into one word", () => {
    assert.deepEqual(words(`echo a'b c'"d"e`), [["echo", "ab cde"]]);
    assert.deepEqual(words(`echo '' ""`), [["echo", "", ""]]);
  });

  it("treats a backslash outside quotes as an escape, and backslash-newline as nothing", () => {
    assert.deepEqual(words("echo a\\ b \\; c\\\nd"), [["echo", "a b", ";", "cd"]]);
  });

  it("decodes $'…' C strings", () => {
    assert.deepEqual(words("printf $'a\\tb\\x41\\101\\''"), [["printf", "a\tbAA'"]]);
    assert.deepEqual(words("$'\\x72m' -rf /"), [["rm", "-rf", "/"]]);
  });

  it("skips comments", () => {
    assert.deepEqual(words("ls # rm -rf /\necho a#b"), [["ls"], ["echo", "a#b"]]);
  });

  it("marks unterminated quotes opaque", () => {
    assert.deepEqual(opaque("echo 'abc"), [true]);
    assert.deepEqual(opaque('echo "abc'), [true]);
  });
});

describe("splitShellScript: operators", () => {
  it("splits on && || ; | & and newlines outside quotes", () => {
    assert.deepEqual(words("a 1 && b 2 || c; d | e & f\ng |& h"), [
      ["a", "1"],
      ["b", "2"],
      ["c"],
      ["d"],
      ["e"],
      ["f"],
      ["g"],
      ["h"],
    ]);
  });

  it("does not split inside quotes", () => {
    assert.deepEqual(words(`echo 'a && b' "c; d | e"`), [["echo", "a && b", "c; d | e"]]);
  });

  it("splits subshells and groups and drops reserved words", () => {
    assert.deepEqual(words("(cd x && make) ; { rm a; }"), [["cd", "x"], ["make"], ["rm", "a"]]);
    assert.deepEqual(words("if test -f x; then rm x; fi"), [
      ["test", "-f", "x"],
      ["rm", "x"],
    ]);
    assert.deepEqual(words("while true; do sleep 1; done"), [["true"], ["sleep", "1"]]);
  });

  it("keeps redirections out of the words and lists the files they write", () => {
    const redirects = (script: string) => splitShellScript(script).map((c) => c.redirects);
    assert.deepEqual(words("npm test > out.txt 2>&1"), [["npm", "test"]]);
    assert.deepEqual(redirects("npm test > out.txt 2>&1"), [["out.txt"]]);
    assert.deepEqual(words("sort <in.txt >>out.txt &> all 2>/dev/null"), [["sort"]]);
    assert.deepEqual(redirects("sort <in.txt >>out.txt &> all 2>/dev/null"), [
      ["out.txt", "all", "/dev/null"],
    ]);
    assert.deepEqual(words("echo 2>x a"), [["echo", "a"]]);
    assert.deepEqual(redirects("echo a >&2 >& 'f g'"), [["f g"]]);
    assert.deepEqual(redirects("bash -c 'a; b' > log"), [["log"], ["log"]]);
    assert.deepEqual(opaque("echo a > $OUT"), [true]);
  });

  it("skips heredoc bodies", () => {
    const script = "cat <<'EOF' > a.txt\nrm -rf /\nEOF\nls\napply_patch <<-END\n\tx\n\tEND\npwd";
    assert.deepEqual(words(script), [["cat"], ["ls"], ["apply_patch"], ["pwd"]]);
    assert.deepEqual(opaque("cat <<EOF\n$(whoami)\nEOF"), [true]);
    assert.deepEqual(opaque("cat <<'EOF'\n$(whoami)\nEOF"), [false]);
  });

  it("separates leading assignments", () => {
    const [command] = splitShellScript('CI=1 FOO="a b" npm test');
    assert.deepEqual(command, {
      assignments: ["CI=1", "FOO=a b"],
      words: ["npm", "test"],
      redirects: [],
      opaque: false,
    });
    assert.deepEqual(splitShellScript("'A=1' x")[0]?.words, ["A=1", "x"]);
  });
});

describe("splitShellScript: what it cannot see through", () => {
  it("marks $( ) and backticks opaque and lists the commands inside", () => {
    const commands = splitShellScript("echo $(whoami) `id -u`");
    assert.deepEqual(
      commands.map((c) => [c.words, c.opaque]),
      [
        [["whoami"], false],
        [["id", "-u"], false],
        [["echo", "$(whoami)", "`id -u`"], true],
      ],
    );
    assert.deepEqual(opaque('echo "$(date)"'), [false, true]);
  });

  it("marks process substitution, eval and an expanded program name opaque", () => {
    assert.deepEqual(opaque("diff <(ls a) b"), [false, true]);
    assert.deepEqual(words("eval 'rm -rf /'"), [
      ["rm", "-rf", "/"],
      ["eval", "rm -rf /"],
    ]);
    assert.deepEqual(opaque("eval 'rm -rf /'"), [false, true]);
    assert.deepEqual(opaque("$CMD arg"), [true]);
    assert.deepEqual(opaque(`echo $HOME \${USER} $1`), [false]);
  });
});

describe("shell wrappers", () => {
  it("finds the script of bash|sh|zsh -c|-lc", () => {
    assert.equal(shellScriptOf(["/bin/bash", "-lc", "ls -la"]), "ls -la");
    assert.equal(shellScriptOf(["sh", "-c", "x", "arg0"]), "x");
    assert.equal(shellScriptOf(["zsh", "-o", "pipefail", "-ec", "y"]), "y");
    assert.equal(shellScriptOf(["bash", "script.sh"]), null);
    assert.equal(shellScriptOf(["python", "-c", "x"]), null);
  });

  it("unwraps codex's bash -lc command, nested too", () => {
    assert.deepEqual(words("/bin/bash -lc 'npm run build && rm -rf dist'"), [
      ["npm", "run", "build"],
      ["rm", "-rf", "dist"],
    ]);
    assert.deepEqual(words(`bash -lc "sh -c 'a; b' | c"`), [["a"], ["b"], ["c"]]);
  });

  it("reads command_actions as well as the command", () => {
    const request = {
      command: "/bin/bash -lc 'ls | tee x'",
      command_actions: [{ type: "listFiles" as const, command: "ls", path: null }],
    };
    assert.deepEqual(
      simpleCommandsOf(request).map((c) => c.words),
      [["ls"], ["tee", "x"], ["ls"]],
    );
    assert.deepEqual(
      simpleCommandsOf({
        command: "",
        command_actions: [{ type: "unknown", command: "git status" }],
      }).map((c) => c.words),
      [["git", "status"]],
    );
  });
});

describe("matching", () => {
  it("normalises a program: basename in system bin dirs, other paths stay paths", () => {
    assert.equal(allowProgram("npm"), "npm");
    assert.equal(allowProgram("/usr/bin/git"), "git");
    assert.equal(allowProgram("/tmp/git"), "/tmp/git");
    assert.equal(allowProgram("./npm"), "./npm");
    assert.equal(allowProgram("bin/x"), "./bin/x");
    assert.equal(commandText({ ...cmd("/bin/ls", "-l"), assignments: ["A=1"] }), "A=1 ls -l");
  });

  it("deny without * matches the command and the command with more words", () => {
    assert.ok(matchesDeny("rm -rf /", ["rm", "-rf", "/"]));
    assert.ok(matchesDeny("rm -rf /", ["/bin/rm", "-rf", "/", "--no-preserve-root"]));
    assert.ok(!matchesDeny("rm -rf /", ["rm", "-rf", "/tmp"]));
    assert.ok(matchesDeny("rm", ["rm", "x"]));
    assert.ok(!matchesDeny("rm", ["rmdir", "x"]));
  });

  it("deny with * is a glob over the whole command", () => {
    assert.ok(matchesDeny("sudo *", ["sudo", "rm", "x"]));
    assert.ok(!matchesDeny("sudo *", ["sudo"]));
    assert.ok(matchesDeny("git push * --force", ["git", "push", "origin", "--force"]));
    assert.ok(!matchesDeny("git push * --force", ["git", "push", "--force", "x"]));
    assert.ok(matchesDeny("*rm*", ["sudo", "rm"]));
    assert.ok(matchesDeny("* --force", ["git", "push", "-u", "--force"]));
    assert.ok(!matchesDeny("a*a*a*a*a*b", ["a".repeat(5000)]));
  });

  it("deny looks past wrappers and sh -c", () => {
    const deny = ["rm -rf /"];
    assert.ok(isDenied(cmd("sudo", "-u", "root", "rm", "-rf", "/"), deny));
    assert.ok(isDenied(cmd("env", "A=1", "rm", "-rf", "/"), deny));
    assert.ok(isDenied(cmd("sudo", "bash", "-c", "cd / && rm -rf /"), deny));
    assert.ok(!isDenied(cmd("echo", "rm", "-rf", "/"), deny));
  });

  it("allows by program name or by a pattern over the whole command", () => {
    const exec = rules({ commands: ["ls", "/usr/bin/git"], patterns: ["npm run *", "bun test *"] });
    assert.ok(isAllowed(cmd("ls", "-la"), exec));
    assert.ok(isAllowed(cmd("/bin/ls"), exec));
    assert.ok(isAllowed(cmd("git", "status"), exec));
    assert.ok(!isAllowed(cmd("./ls"), exec));
    assert.ok(isAllowed(cmd("npm", "run", "build"), exec));
    assert.ok(!isAllowed(cmd("npm", "run"), exec));
    assert.ok(!isAllowed(cmd("npm", "publish"), exec));
    assert.ok(!isAllowed({ ...cmd("ls"), assignments: ["PATH=/tmp"] }, exec));
    assert.ok(!isAllowed({ ...cmd("ls"), opaque: true }, exec));
  });

  it("allows a redirection only to a file the rules call writable", () => {
    const write = (...redirects: string[]) => ({ ...cmd("ls"), redirects });
    const exec = rules({ commands: ["ls"], writable: (target) => target.startsWith("out/") });
    assert.ok(isAllowed(write("/dev/null", "/dev/stderr"), exec));
    assert.ok(isAllowed(write("out/list.txt"), exec));
    assert.ok(!isAllowed(write("/etc/passwd"), exec));
    assert.ok(!isAllowed(write("out/x"), rules({ commands: ["ls"] })));
  });

  it("judges whole scripts: any deny declines, every command allowed accepts", () => {
    const exec = {
      commands: ["ls", "echo"],
      patterns: ["npm run *"],
      deny: ["rm -rf /", "sudo *"],
    };
    assert.equal(judge("ls", exec), "allow");
    assert.equal(judge("ls && npm run build | echo done", exec), "allow");
    assert.equal(judge("rm -rf /", exec), "deny");
    assert.equal(judge("sudo rm x", exec), "deny");
    assert.equal(judge("ls; sudo rm x", exec), "deny");
    assert.equal(judge("npm publish", exec), "unknown");
    assert.equal(judge("ls && npm publish", exec), "unknown");
    assert.equal(judge("echo $(whoami)", exec), "unknown");
    assert.equal(judge("echo `rm -rf /`", exec), "deny");
    assert.equal(judge("", exec), "unknown");
  });
});

describe("the command as the model wrote it (wrappedScriptOf)", () => {
  it("unwraps codex's shell, quotes removed", () => {
    assert.equal(wrappedScriptOf("/bin/bash -lc 'ls -la'"), "ls -la");
    assert.equal(wrappedScriptOf("/bin/bash -lc ls"), "ls");
    assert.equal(wrappedScriptOf('/usr/bin/zsh -lc "git status"'), "git status");
    assert.equal(wrappedScriptOf("bash -c 'echo '\\''hi'\\'''"), "echo 'hi'");
    assert.equal(wrappedScriptOf("sh -c 'a && b'"), "a && b");
  });

  it("is null for a command that is not one shell on one script", () => {
    assert.equal(wrappedScriptOf("ls -la"), null);
    assert.equal(wrappedScriptOf("bash script.sh"), null);
    assert.equal(wrappedScriptOf("bash -lc 'ls' && rm -rf x"), null);
    assert.equal(wrappedScriptOf("FOO=1 bash -lc ls"), null);
    assert.equal(wrappedScriptOf("bash -lc ls > out"), null);
  });
});
