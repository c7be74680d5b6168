package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** CONFIG REWRITE's line edits, as Redis's rewriteConfig makes them. */
class ConfigRewriteTest {
  private static Map<String, String> map(String... namesAndValues) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      map.put(namesAndValues[i], namesAndValues[i + 1]);
    }
    return map;
  }

  private static final Map<String, String> DEFAULTS =
      map("port", "6379", "timeout", "0", "requirepass", "", "maxmemory", "0", "logfile", "");

  @Test
  void rewrite_optionsInTheFile_rewrittenInPlaceWithCommentsAndUnknownLinesKept() {
    List<String> old =
        List.of(
            "# the port",
            "port 6380",
            "",
            "",
            "# unknown to this server: left alone",
            "some-other-option 1",
            "config /etc/more.conf",
            "--timeout 5",
            "TIMEOUT 6",
            "maxmemory 0");
    Map<String, String> current =
        map("port", "6380", "timeout", "7", "requirepass", "", "maxmemory", "0", "logfile", "");
    assertEquals(
        List.of(
            "# the port",
            "port 6380",
            "",
            "# unknown to this server: left alone",
            "some-other-option 1",
            "config /etc/more.conf",
            "timeout 7",
            "",
            "maxmemory 0"),
        ConfigRewrite.rewrite(old, current, DEFAULTS));
  }

  @Test
  void rewrite_optionWithoutValue_itsLinesRemovedAndNoneAppended() {
    // a cluster node's replicaof (Redis's rewriteConfigMarkAsProcessed)
    Map<String, String> current = map("port", "6380", "replicaof", null);
    assertEquals(
        List.of("port 6380", "", "# kept", ""),
        ConfigRewrite.rewrite(
            List.of("port 6380", "slaveof 127.0.0.1 7000", "# kept", "replicaof 127.0.0.1 7001"),
            current,
            map("port", "6379", "replicaof", "")));
    assertEquals(
        List.of("port 6380"),
        ConfigRewrite.rewrite(List.of("port 6380"), current, map("port", "6379", "replicaof", "")));
  }

  @Test
  void rewrite_changedOptionsMissingFromTheFile_appendedAfterOneSignature() {
    Map<String, String> current =
        map(
            "port",
            "6379",
            "timeout",
            "0",
            "requirepass",
            "a secret",
            "maxmemory",
            "1gb",
            "logfile",
            "");
    List<String> once = ConfigRewrite.rewrite(List.of("# mine"), current, DEFAULTS);
    assertEquals(
        List.of("# mine", ConfigRewrite.SIGNATURE, "requirepass \"a secret\"", "maxmemory 1gb"),
        once);
    current.put("logfile", "/var/log/cuckoo.log");
    assertEquals(
        List.of(
            "# mine",
            ConfigRewrite.SIGNATURE,
            "requirepass \"a secret\"",
            "maxmemory 1gb",
            "logfile /var/log/cuckoo.log"),
        ConfigRewrite.rewrite(once, current, DEFAULTS));
  }

  @Test
  void rewrite_emptyFileAndDefaults_staysEmpty() {
    assertEquals(List.of(), ConfigRewrite.rewrite(List.of(), DEFAULTS, DEFAULTS));
  }
}
