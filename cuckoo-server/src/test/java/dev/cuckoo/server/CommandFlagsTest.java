package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every command and subcommand this server has reports the arity, flags and ACL categories Redis 8
 * reports for it in COMMAND INFO, RedisBloom's CF.* commands included (known answers in
 * redis8-command-flags.txt). Flags decide behaviour too: MONITOR leaves out admin commands, SLOWLOG
 * skips skip_slowlog, a replica without its master serves only stale commands.
 */
class CommandFlagsTest {

  @Test
  void commandInfo_everyCommand_reportsRedisArityFlagsAndCategories() throws IOException {
    Map<String, String> expected = knownAnswers();
    List<String> mismatches = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      for (Object entry : (List<?>) client.call("COMMAND")) {
        check((List<?>) entry, expected, mismatches, unknown);
      }
    }
    assertEquals(List.of(), mismatches, "commands whose COMMAND INFO differs from Redis 8's");
    assertEquals(List.of(), unknown, "commands missing from redis8-command-flags.txt");
    assertTrue(expected.size() > 100, "known answers read: " + expected.size());
  }

  private static void check(
      List<?> entry, Map<String, String> expected, List<String> mismatches, List<String> unknown) {
    String name = RespClient.text(entry.get(0));
    List<String> flags = new ArrayList<>();
    for (Object flag : (List<?>) entry.get(2)) {
      String text =
          flag instanceof RespClient.Simple simple ? simple.text() : RespClient.text(flag);
      if (!text.equals("movablekeys")) {
        flags.add(text);
      }
    }
    List<String> categories = new ArrayList<>();
    for (Object category : (List<?>) entry.get(6)) {
      String text =
          category instanceof RespClient.Simple simple ? simple.text() : RespClient.text(category);
      categories.add(text.substring(1));
    }
    String actual =
        entry.get(1)
            + " "
            + (flags.isEmpty() ? "-" : String.join(",", flags))
            + " "
            + String.join(",", categories);
    String want = expected.get(name);
    if (want == null) {
      unknown.add(name + " " + actual);
    } else if (!want.equals(actual)) {
      mismatches.add(name + ": " + actual + " (Redis 8: " + want + ")");
    }
    if (entry.size() > 9) {
      for (Object subcommand : (List<?>) entry.get(9)) {
        check((List<?>) subcommand, expected, mismatches, unknown);
      }
    }
  }

  private static Map<String, String> knownAnswers() throws IOException {
    Map<String, String> answers = new LinkedHashMap<>();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(
                CommandFlagsTest.class.getResourceAsStream("redis8-command-flags.txt"),
                StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (!line.isBlank() && !line.startsWith("#")) {
          int space = line.indexOf(' ');
          answers.put(line.substring(0, space), line.substring(space + 1));
        }
      }
    }
    return answers;
  }
}
