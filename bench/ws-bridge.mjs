#!/usr/bin/env node
// Serves a stdio app-server (argv[2], run with node) on WebSocket at 127.0.0.1 (no auth, loopback):
// one child per connection, each stdout line a text frame, each frame a stdin line. It prints the
// port on stdout once listening. For the benchmark of event throughput over WebSocket.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { WebSocketServer } from "ws";

const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
server.on("connection", (socket) => {
  const child = spawn(process.execPath, [process.argv[2]], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    socket.send(line);
    // Backpressure: stop reading while the socket holds more than 4 MiB.
    if (socket.bufferedAmount > 4 * 1024 * 1024) {
      child.stdout.pause();
      const resume = () => {
        if (socket.bufferedAmount > 1024 * 1024) setTimeout(resume, 1);
        else child.stdout.resume();
      };
      setTimeout(resume, 1);
    }
  });
  socket.on("message", (data) => child.stdin.write(`${data}\n`));
  socket.on("close", () => child.kill());
  child.on("exit", () => socket.close());
});
server.on("listening", () => console.log(server.address().port));
