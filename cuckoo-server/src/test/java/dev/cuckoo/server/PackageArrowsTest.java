package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The server's packages depend on each other one way only: {@code config} (the parameter table) on
 * nothing, {@code protocol}, {@code keyspace}, {@code cluster}, {@code tls} and {@code rdb} (the
 * DUMP payload) on config only, {@code acl} (the users) on config only, {@code migrate} (MIGRATE's
 * connections) on nothing, {@code persist} on those but cluster, tls, acl and migrate, {@code
 * replication} on those too, {@code session} (the client connections) on persist and those below
 * it, pubsub and acl, {@code command} on the others, {@code network} on them; the top package wires
 * them all and no other package reads it.
 */
class PackageArrowsTest {
  private static final Path SOURCES = Path.of("src/main/java/dev/cuckoo/server");
  private static final Pattern REFERENCE =
      Pattern.compile("dev\\.cuckoo\\.server\\.(?:(\\w+)\\.)?([A-Z]\\w*)");

  private static final Map<String, Set<String>> ALLOWED =
      Map.ofEntries(
          Map.entry("config", Set.of()),
          Map.entry("protocol", Set.of("config")),
          Map.entry("keyspace", Set.of("config")),
          Map.entry("rdb", Set.of("config")),
          Map.entry("migrate", Set.of()),
          Map.entry("cluster", Set.of("config")),
          Map.entry("acl", Set.of("config")),
          Map.entry("tls", Set.of("config")),
          Map.entry("persist", Set.of("keyspace", "protocol", "rdb", "config")),
          Map.entry("replication", Set.of("persist", "keyspace", "protocol", "rdb", "config")),
          Map.entry(
              "session", Set.of("persist", "keyspace", "protocol", "pubsub", "acl", "config")),
          Map.entry(
              "command",
              Set.of(
                  "session",
                  "replication",
                  "persist",
                  "keyspace",
                  "protocol",
                  "pubsub",
                  "config",
                  "rdb",
                  "migrate",
                  "cluster",
                  "acl")),
          Map.entry(
              "network",
              Set.of(
                  "command",
                  "session",
                  "replication",
                  "persist",
                  "keyspace",
                  "protocol",
                  "pubsub",
                  "config")),
          Map.entry("pubsub", Set.of("protocol", "config")));

  /** Returns every reference from {@code file} to another server package, as "package.Class". */
  private static List<String> references(Path file) throws IOException {
    List<String> found = new ArrayList<>();
    Matcher matcher = REFERENCE.matcher(Files.readString(file));
    while (matcher.find()) {
      String pkg = matcher.group(1) == null ? "" : matcher.group(1);
      found.add(pkg + "." + matcher.group(2));
    }
    return found;
  }

  @Test
  void imports_pointOneWay_noCycleBetweenPackages() throws IOException {
    List<String> wrong = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<String, Set<String>> rule : ALLOWED.entrySet()) {
      String pkg = rule.getKey();
      try (Stream<Path> files = Files.list(SOURCES.resolve(pkg))) {
        for (Path file : (Iterable<Path>) files::iterator) {
          checked++;
          for (String reference : references(file)) {
            String target = reference.substring(0, reference.indexOf('.'));
            boolean ok = target.equals(pkg) || rule.getValue().contains(target);
            if (!ok) {
              wrong.add(pkg + "/" + file.getFileName() + " -> " + reference);
            }
          }
        }
      }
    }
    assertTrue(checked > 50, "found the sources: " + checked);
    assertEquals(List.of(), wrong, "references against the arrows");
  }
}
