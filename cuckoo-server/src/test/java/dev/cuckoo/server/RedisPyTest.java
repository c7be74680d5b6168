package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * redis-py's cuckoo filter client (Debian's python3-redis); skipped when the system Python has no
 * redis module.
 */
@ExtendWith(LeakCheck.class)
class RedisPyTest {
  private static final String PYTHON = "/usr/bin/python3";

  private static boolean redisPyAvailable() throws Exception {
    if (!new File(PYTHON).canExecute()) {
      return false;
    }
    Process check =
        new ProcessBuilder(PYTHON, "-c", "import redis.commands.bf, redis.cluster")
            .redirectErrorStream(true)
            .start();
    check.getInputStream().readAllBytes();
    return check.waitFor(30, TimeUnit.SECONDS) && check.exitValue() == 0;
  }

  /**
   * Returns the system Python with redis-py's cluster client; skips the test without it, except
   * under {@code CI=true}, where it fails ({@code .ci/run} installs python3-redis).
   */
  static java.nio.file.Path python() throws Exception {
    if (!redisPyAvailable()) {
      if ("true".equals(System.getenv("CI"))) {
        org.junit.jupiter.api.Assertions.fail(
            "python3-redis is not installed, and CI must run the redis-py cluster tests");
      }
      assumeTrue(false, "python3-redis not installed: the redis-py cluster test is skipped");
    }
    return java.nio.file.Path.of(PYTHON);
  }

  /**
   * Runs a script of the test resources with these arguments; returns what it printed (failing if
   * it runs past {@code timeoutSeconds}).
   */
  static String runScript(Path dir, String name, long timeoutSeconds, String... args)
      throws Exception {
    Path script = dir.resolve(name);
    try (InputStream in = RedisPyTest.class.getResourceAsStream("/" + name)) {
      Files.copy(in, script);
    }
    java.util.List<String> command =
        new java.util.ArrayList<>(java.util.List.of(python().toString(), script.toString()));
    command.addAll(java.util.List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(name + " ran past " + timeoutSeconds + " s: " + output);
    }
    return output;
  }

  @Test
  void redisPy_cfCommands_passRedisPyExpectations(@TempDir Path dir) throws Exception {
    assertEquals("PASS\n", runScript(dir, "redis_py_cf.py"));
  }

  @Test
  void redisPy_infoAndKeyspaceCommands_parseAsFromRedis(@TempDir Path dir) throws Exception {
    assertEquals("PASS\n", runScript(dir, "redis_py_info.py"));
  }

  @Test
  void redisPy_pipelinesWatchDatabasesAndExpiry_workAsOnRedis(@TempDir Path dir) throws Exception {
    assertEquals("PASS\n", runScript(dir, "redis_py_deploy.py"));
  }

  /**
   * redis-py's ACL calls as its tests/test_commands.py makes them (acl_setuser, acl_getuser,
   * acl_list, acl_log, acl_dryrun, acl_cat, acl_whoami, acl_deluser, acl_genpass, acl_users), with
   * CF commands in place of the string and hash commands this server does not have.
   */
  @Test
  void redisPy_aclCalls_passRedisPyExpectations(@TempDir Path dir) throws Exception {
    String output = runScript(dir, "redis_py_acl.py");
    assertEquals("PASS", output.strip().substring(output.strip().lastIndexOf('\n') + 1), output);
  }

  /** Runs a script of the test resources against a fresh server; returns what it printed. */
  private static String runScript(Path dir, String name) throws Exception {
    assumeTrue(redisPyAvailable(), "python3-redis not installed");
    try (CuckooServer server = TestServers.start()) {
      return runScript(dir, name, 60, Integer.toString(server.port()));
    }
  }
}
