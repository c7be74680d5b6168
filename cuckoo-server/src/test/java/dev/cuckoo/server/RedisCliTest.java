package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A redis-cli session (Debian's redis-tools); skipped when redis-cli is not installed. */
@ExtendWith(LeakCheck.class)
class RedisCliTest {
  private static String redisCli() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File candidate = new File(dir, "redis-cli");
      if (candidate.canExecute()) {
        return candidate.getPath();
      }
    }
    return null;
  }

  private static String run(String cli, int port, String stdin, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(cli, "-p", Integer.toString(port)));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor(30, TimeUnit.SECONDS);
    return output;
  }

  @Test
  void redisCli_session_printsRedisBloomReplies() throws Exception {
    String cli = redisCli();
    assumeTrue(cli != null, "redis-cli not installed");
    try (CuckooServer server = TestServers.start()) {
      String session =
          "CF.RESERVE cf 8\nCF.ADD cf item1\nCF.ADDNX cf item1\n"
              + "CF.EXISTS cf item1\nCF.MEXISTS cf item1 nope\nCF.COUNT cf item1\n"
              + "CF.INFO cf\nCF.DEBUG cf\nCF.DEL missing x\nCF.RESERVE cf 8\nTYPE cf\n"
              + "CF.INSERT cf CAPACITY 3 ITEMS x\n";
      String expected =
          "OK\n1\n0\n1\n1\n0\n1\nSize\n64\nNumber of buckets\n4\n"
              + "Number of filters\n1\nNumber of items inserted\n1\nNumber of items deleted\n0\n"
              + "Bucket size\n2\nExpansion rate\n1\nMax iterations\n20\n"
              + "bktsize:2 buckets:4 items:1 deletes:0 filters:1 max_iterations:20 expansion:1\n"
              // in raw mode redis-cli prints an empty line after each error
              + "Not found\n\nERR item exists\n\nMBbloomCF\n"
              + "Capacity must be in the range [cf-bucket-size * 2, 1073741824]\n\n";
      assertEquals(expected, run(cli, server.port(), session));
      assertEquals(
          "1) (integer) 1\n2) (integer) 0\n",
          run(cli, server.port(), "", "--no-raw", "CF.MEXISTS", "cf", "item1", "nope"));
      assertEquals(
          "(error) Not found\n", run(cli, server.port(), "", "--no-raw", "CF.DEL", "missing", "x"));
      assertEquals(
          "(true)\n", run(cli, server.port(), "", "-3", "--no-raw", "CF.EXISTS", "cf", "item1"));
    }
  }
}
