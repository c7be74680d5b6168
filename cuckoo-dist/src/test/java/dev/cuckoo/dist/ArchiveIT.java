package dev.cuckoo.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * cuckoo-VERSION.tar.gz as an operator uses it: unpacked with tar, the server started with its
 * config file from another directory and through symlinks, stopped with SIGTERM, started again.
 */
class ArchiveIT {
  /** The server's JVM: a small heap, the rest of conf/jvm.options as shipped. */
  private static final Map<String, String> ENVIRONMENT =
      Map.of("JAVA_HOME", System.getProperty("java.home"), "CUCKOO_JAVA_OPTS", "-Xmx256m");

  private static final Pattern LOG_LINE =
      Pattern.compile(
          "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  "
              + "CuckooServer: listening on 127\\.0\\.0\\.1:\\d+ \\((epoll|nio)\\)$",
          Pattern.MULTILINE);

  @TempDir static Path unpacked;
  private static Path home;

  @TempDir Path work;

  @BeforeAll
  static void unpack() throws Exception {
    home = Dist.unpack(unpacked);
  }

  @Test
  void archive_entries_binConfLibAndTexts() throws Exception {
    Dist.Result listing = Dist.run(unpacked, Map.of(), "tar", "-tzvf", Dist.archive().toString());
    assertEquals(0, listing.exitCode(), listing.toString());
    Map<String, String> modes = new TreeMap<>();
    for (String line : listing.output().split("\n")) {
      String[] fields = line.trim().split("\\s+");
      modes.put(fields[fields.length - 1], fields[0]);
    }
    String top = Dist.NAME + "/";
    TreeSet<String> files = new TreeSet<>();
    List<String> jars = new ArrayList<>();
    modes.forEach(
        (name, mode) -> {
          assertTrue(name.startsWith(top), name);
          if (name.startsWith(top + "lib/") && name.endsWith(".jar")) {
            jars.add(name.substring(top.length() + 4));
            assertEquals("-rw-r--r--", mode, name);
          } else if (!name.endsWith("/")) {
            files.add(name.substring(top.length()));
          }
        });
    assertEquals(
        new TreeSet<>(
            List.of(
                "LICENSE",
                "NOTICE",
                "README",
                "bin/cuckoo",
                "bin/cuckoo-server",
                "conf/cuckoo-server.conf",
                "conf/jvm.options")),
        files);
    assertEquals("-rwxr-xr-x", modes.get(top + "bin/cuckoo"));
    assertEquals("-rwxr-xr-x", modes.get(top + "bin/cuckoo-server"));
    assertEquals("-rw-r--r--", modes.get(top + "conf/cuckoo-server.conf"));
    for (String jar :
        List.of("cuckoo-core-", "cuckoo-server-", "cuckoo-cli-", "picocli-", "netty-handler-")) {
      assertTrue(jars.stream().anyMatch(name -> name.startsWith(jar)), jar + " in " + jars);
    }
    assertTrue(jars.contains("cuckoo-server-" + Dist.VERSION + ".jar"), jars.toString());
  }

  @Test
  void cuckooServer_otherDirectoryThenSymlinks_servesAndKeepsAWriteAcrossSigterm()
      throws Exception {
    Path data = work.resolve("data");
    Path elsewhere = Files.createDirectories(work.resolve("elsewhere"));
    long firstStopMillis;
    try (ServerProcess server = startServer(elsewhere, home.resolve("bin/cuckoo-server"), data)) {
      int port = server.awaitPort();
      try (RedisClient redis = RedisClient.create("redis://127.0.0.1:" + port)) {
        assertEquals("PONG", redis.ping());
        assertTrue(redis.cfAdd("visitors", "alice"));
      }
      firstStopMillis = server.terminate();
      String output = server.output();
      assertEquals(0, server.exitCode(), output);
      assertTrue(LOG_LINE.matcher(output).find(), output);
      assertTrue(output.contains("INFO  CuckooServer: SIGTERM: shutting down"), output);
    }
    assertTrue(Files.isRegularFile(data.resolve("appendonly.log")), data.toString());
    assertTrue(Files.isRegularFile(data.resolve("dump.cuckoo")), data.toString());

    // a symlink to a relative symlink to the launcher, run from yet another directory
    Path links = Files.createDirectories(work.resolve("links"));
    Files.createSymbolicLink(links.resolve("direct"), home.resolve("bin/cuckoo-server"));
    Path relative = Files.createSymbolicLink(links.resolve("cuckoo-server"), Paths.get("direct"));
    Path onPath = Files.createDirectories(work.resolve("usr/bin"));
    Path link = Files.createSymbolicLink(onPath.resolve("cuckoo-server"), relative);
    long secondStopMillis;
    try (ServerProcess server = startServer(work, link, data)) {
      int port = server.awaitPort();
      try (RedisClient redis = RedisClient.create("redis://127.0.0.1:" + port)) {
        assertTrue(redis.cfExists("visitors", "alice"));
        assertFalse(redis.cfExists("visitors", "bob"));
      }
      secondStopMillis = server.terminate();
      assertEquals(0, server.exitCode(), server.output());
    }
    System.out.printf(
        "bin/cuckoo-server: SIGTERM to exit %d ms and %d ms%n", firstStopMillis, secondStopMillis);
  }

  @Test
  void cuckooServe_sigterm_logsStartAndStopAndExitsZero() throws Exception {
    Path data = work.resolve("serve-data");
    List<String> command =
        List.of(
            launcher("cuckoo"),
            "serve",
            "--port",
            Integer.toString(Dist.freePort()),
            "--dir",
            data.toString());
    try (ServerProcess server =
        ServerProcess.start(
            work, ENVIRONMENT, Files.createTempFile(work, "serve", ".out"), command)) {
      int port = server.awaitPort();
      try (RedisClient redis = RedisClient.create("redis://127.0.0.1:" + port)) {
        assertTrue(redis.cfAdd("visitors", "alice"));
      }
      server.terminate();
      String output = server.output();
      assertEquals(0, server.exitCode(), output);
      assertTrue(output.contains("starting: pid "), output);
      assertTrue(output.contains("maximum heap "), output);
      assertTrue(output.contains("INFO  CuckooServer: SIGTERM: shutting down"), output);
      assertTrue(Pattern.compile("stopped in \\d+ ms").matcher(output).find(), output);
    }
  }

  @Test
  void launchers_versionAndHelp_answerWithoutStarting() throws Exception {
    Dist.Result version = Dist.run(work, ENVIRONMENT, launcher("cuckoo-server"), "--version");
    assertEquals(0, version.exitCode(), version.toString());
    assertTrue(
        version.output().startsWith("cuckoo-server " + Dist.VERSION + " "), version.output());
    Dist.Result help = Dist.run(work, ENVIRONMENT, launcher("cuckoo-server"), "--help");
    assertEquals(0, help.exitCode(), help.toString());
    assertTrue(
        help.output().startsWith("Usage: cuckoo-server [config-file] [--option value ...]"),
        help.output());
    assertTrue(help.output().contains("--logfile PATH"), help.output());
    Dist.Result cli = Dist.run(work, ENVIRONMENT, launcher("cuckoo"), "--version");
    assertEquals(0, cli.exitCode(), cli.toString());
    assertTrue(cli.output().startsWith("cuckoo " + Dist.VERSION + "\n"), cli.output());
  }

  @Test
  void cuckooServer_jvmOptions_fileThenEnvironmentWins() throws Exception {
    Map<String, String> environment =
        Map.of(
            "JAVA_HOME",
            System.getProperty("java.home"),
            "CUCKOO_JAVA_OPTS",
            "-XX:+PrintCommandLineFlags -Xmx200m");
    Dist.Result shipped = Dist.run(work, environment, launcher("cuckoo-server"), "--version");
    assertEquals(0, shipped.exitCode(), shipped.toString());
    for (String flag :
        List.of(
            "-XX:NewRatio=6",
            "-XX:MinHeapFreeRatio=60",
            "-XX:MaxHeapFreeRatio=80",
            "-XX:+UseSerialGC",
            "-XX:MaxRAMPercentage=50.000000",
            "-XX:InitialHeapSize=67108864",
            "-XX:-OmitStackTraceInFastThrow",
            "-XX:MaxHeapSize=209715200")) {
      assertTrue(shipped.output().contains(flag), flag + " in " + shipped.output());
    }
    // huge pages where the kernel offers them on request; left out elsewhere (the JVM would warn)
    Path thp = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
    String offered = Files.isReadable(thp) ? Files.readString(thp) : "";
    assertEquals(
        offered.contains("[always]") || offered.contains("[madvise]"),
        shipped.output().contains("-XX:+UseTransparentHugePages"),
        "transparent huge pages '" + offered.trim() + "': " + shipped.output());
    Path other = Files.writeString(work.resolve("other.options"), "# only this\n-Xmx100m\n");
    Map<String, String> otherFile = new TreeMap<>(environment);
    otherFile.put("CUCKOO_JVM_OPTIONS", other.toString());
    otherFile.put("CUCKOO_JAVA_OPTS", "-XX:+PrintCommandLineFlags");
    Dist.Result replaced = Dist.run(work, otherFile, launcher("cuckoo-server"), "--version");
    assertEquals(0, replaced.exitCode(), replaced.toString());
    assertTrue(replaced.output().contains("-XX:MaxHeapSize=104857600"), replaced.output());
    assertFalse(replaced.output().contains("NewRatio"), replaced.output());

    // gigabytes of filters: G1 rather than the serial collector's long full collections
    Map<String, String> large = new TreeMap<>(environment);
    large.put("CUCKOO_JAVA_OPTS", "-XX:+PrintCommandLineFlags");
    // a bad port ends the server once the JVM has printed its flags
    Dist.Result big =
        Dist.run(work, large, launcher("cuckoo-server"), "--maxmemory", "6gb", "--port", "-1");
    assertTrue(big.output().contains("-XX:+UseG1GC"), big.output());
    assertTrue(big.output().contains("-XX:MaxHeapSize=8589934592"), big.output());
    assertFalse(big.output().contains("UseSerialGC"), big.output());
    assertFalse(big.output().contains("NewRatio"), big.output());
    assertTrue(big.output().contains("-XX:MaxHeapFreeRatio=30"), big.output());
    assertTrue(big.output().contains("-XX:MinHeapFreeRatio=20"), big.output());
    Dist.Result small =
        Dist.run(work, large, launcher("cuckoo-server"), "--maxmemory", "3gb", "--port", "-1");
    assertTrue(small.output().contains("-XX:+UseSerialGC"), small.output());
  }

  @Test
  void launchers_noJava_sayWhatIsMissing() throws Exception {
    Dist.Result server =
        Dist.run(
            work,
            Map.of("JAVA_HOME", work.resolve("no-jdk").toString()),
            launcher("cuckoo-server"));
    assertEquals(1, server.exitCode(), server.toString());
    assertTrue(server.output().contains("JAVA_HOME is " + work.resolve("no-jdk")), server.output());
    // a PATH with the tools the launcher needs, but no java
    Path tools = Files.createDirectories(work.resolve("tools"));
    for (String tool : List.of("dirname", "readlink")) {
      Files.createSymbolicLink(tools.resolve(tool), Dist.whereIs(tool));
    }
    Dist.Result cli =
        Dist.run(
            work, Map.of("JAVA_HOME", "", "PATH", tools.toString()), "/bin/sh", launcher("cuckoo"));
    assertEquals(1, cli.exitCode(), cli.toString());
    assertTrue(cli.output().contains("no java on the PATH"), cli.output());
  }

  private static String launcher(String name) {
    return home.resolve("bin").resolve(name).toString();
  }

  /** Starts the launcher with the shipped config file, a free port and {@code data}. */
  private ServerProcess startServer(Path directory, Path launcher, Path data) throws IOException {
    List<String> command =
        List.of(
            launcher.toString(),
            home.resolve("conf/cuckoo-server.conf").toString(),
            "--port",
            Integer.toString(Dist.freePort()),
            "--dir",
            data.toString());
    return ServerProcess.start(
        directory, ENVIRONMENT, Files.createTempFile(work, "server", ".out"), command);
  }
}
