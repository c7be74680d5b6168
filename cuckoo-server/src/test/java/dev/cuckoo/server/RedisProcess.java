package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's redis-server as a child process on a free loopback port, keeping nothing ({@code save
 * ""}, {@code appendonly no}), for tests against a Redis master or replica. Without redis-server
 * the test is skipped, except under {@code CI=true}, where it fails ({@code .ci/run} installs it).
 */
final class RedisProcess implements Closeable {
  final int port;
  final Path dir;
  private final Process process;

  private RedisProcess(int port, Path dir, Process process) {
    this.port = port;
    this.dir = dir;
    this.process = process;
  }

  /** Returns redis-server's path, or skips (fails under CI) when it is not installed. */
  static Path executable() {
    for (String candidate : List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server")) {
      Path path = Path.of(candidate);
      if (Files.isExecutable(path)) {
        return path;
      }
    }
    if ("true".equals(System.getenv("CI"))) {
      fail(
          "redis-server is not installed, and CI must run the Redis master tests (.ci/run installs it)");
    }
    assumeTrue(false, "redis-server not installed: the test against a Redis master is skipped");
    return null;
  }

  /** Returns a free loopback port. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Starts redis-server with {@code options} ("--name", "value" pairs) and waits for its PING. */
  static RedisProcess start(String... options) throws IOException, InterruptedException {
    Path executable = executable();
    int port = freePort();
    Path dir = Files.createDirectories(TestServers.freshDataDir().toAbsolutePath());
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            executable.toString(),
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.toString(),
            "--logfile",
            dir.resolve("redis.log").toString()));
    command.addAll(List.of(options));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("stdout.log").toFile())
            .start();
    RedisProcess redis = new RedisProcess(port, dir, process);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("redis-server exited: " + redis.log());
      }
      try (RespClient client = new RespClient(port)) {
        if (client.call("PING") instanceof RespClient.Simple) {
          return redis;
        }
      } catch (IOException notYet) {
        Thread.sleep(20);
      }
    }
    redis.close();
    throw new AssertionError("redis-server did not answer within 10 s: " + redis.log());
  }

  /** Returns redis-server's log. */
  String log() {
    try {
      return Files.readString(dir.resolve("redis.log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
