package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ServeCommandTest {
  @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir;

  @Test
  void serve_freePort_answersUntilShutdown() throws Exception {
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine commandLine = CuckooCli.commandLine(new CuckooCli());
    commandLine.setOut(new java.io.PrintWriter(out, true));
    commandLine.setErr(new java.io.PrintWriter(err, true));
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(
            () ->
                commandLine.execute(
                    "serve",
                    "--port",
                    Integer.toString(TestFiles.freePort()),
                    "--appendonly",
                    "no",
                    "--dir",
                    dir.toString()));
    int port = -1;
    for (int i = 0; i < 200 && port < 0; i++) {
      Matcher matcher =
          Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)").matcher(out.toString());
      if (matcher.find()) {
        port = Integer.parseInt(matcher.group(1));
      } else {
        Thread.sleep(50);
      }
    }
    assertTrue(port > 0, "no port in: " + out + err);
    try (RespClient client = new RespClient("127.0.0.1", port, 10_000)) {
      assertEquals("PONG", client.call("PING"));
      assertEquals("OK", client.call("CF.RESERVE", "k", "100"));
      assertEquals(1L, client.call("CF.ADD", "k", "x"));
      client.send(RespWriter.text("SHUTDOWN"));
    }
    assertEquals(0, exit.get(20, TimeUnit.SECONDS), out + "\n" + err);
    // appendonly no keeps snapshots (Redis's save points): SHUTDOWN saved one
    assertTrue(java.nio.file.Files.isRegularFile(dir.resolve("dump.cuckoo")), "no snapshot saved");
  }

  @Test
  void serve_help_listsTheServerOptionsWithoutPicocliWarnings() {
    java.io.PrintStream stderr = System.err;
    java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
    CliRun help;
    System.setErr(new java.io.PrintStream(warnings, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      help = CliRun.run("serve", "--help");
    } finally {
      System.setErr(stderr);
    }
    assertEquals(0, help.exitCode, help.toString());
    assertEquals("", warnings.toString(java.nio.charset.StandardCharsets.UTF_8));
    assertTrue(help.out.contains("snapshot when the log grew N% since the"), help.out);
    assertTrue(help.out.contains("--logfile PATH"), help.out);
  }

  @Test
  void serve_badOptions_exit2() throws IOException {
    CliRun badPort = CliRun.run("serve", "--port", "abc");
    assertEquals(ExitCode.ERROR, badPort.exitCode, badPort.toString());
    assertEquals(1, badPort.errLines().length, badPort.err);
    CliRun unknown = CliRun.run("serve", "--frobnicate", "1");
    assertEquals(ExitCode.ERROR, unknown.exitCode, unknown.toString());
    try (ServerSocket busy = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      CliRun inUse =
          CliRun.run(
              "serve",
              "--port",
              Integer.toString(busy.getLocalPort()),
              "--appendonly",
              "no",
              "--dir",
              dir.toString());
      assertEquals(ExitCode.ERROR, inUse.exitCode, inUse.toString());
      assertEquals(1, inUse.errLines().length, inUse.err);
      assertTrue(inUse.err.contains("127.0.0.1:" + busy.getLocalPort()), inUse.err);
    }
  }
}
