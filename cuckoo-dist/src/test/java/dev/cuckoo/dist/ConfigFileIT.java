package dev.cuckoo.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.CuckooServer;
import dev.cuckoo.server.ServerConfig;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * conf/cuckoo-server.conf of the archive against the server's option table: every option is in it,
 * the file as shipped changes nothing, its commented-out examples are valid, and the Debian
 * package's copy differs only where the data goes.
 */
class ConfigFileIT {
  @TempDir static Path unpacked;

  private static Path config;
  private static List<String> lines;

  /** The "name value" lines, by name. */
  private static final Map<String, String> ACTIVE = new LinkedHashMap<>();

  /** The "# name value" lines whose name is an option, by name. */
  private static final Map<String, String> COMMENTED_OUT = new LinkedHashMap<>();

  @BeforeAll
  static void read() throws Exception {
    config = Dist.unpack(unpacked).resolve("conf/cuckoo-server.conf");
    lines = Files.readAllLines(config, StandardCharsets.UTF_8);
    Set<String> options = ServerConfig.optionNames();
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      boolean comment = line.startsWith("# ");
      String[] parts = (comment ? line.substring(2) : line).split(" ", 2);
      if (!comment && !line.startsWith("#")) {
        ACTIVE.put(parts[0], parts.length > 1 ? parts[1] : "");
      } else if (comment && parts.length == 2 && options.contains(parts[0])) {
        COMMENTED_OUT.put(parts[0], parts[1]);
      }
    }
  }

  @Test
  void configFile_everyServerOption_isInIt() {
    Set<String> missing = new TreeSet<>(ServerConfig.optionNames());
    missing.removeAll(ACTIVE.keySet());
    missing.removeAll(COMMENTED_OUT.keySet());
    assertEquals(Set.of(), missing, "options missing from " + config);
    Set<String> unknown = new TreeSet<>(ACTIVE.keySet());
    unknown.removeAll(ServerConfig.optionNames());
    assertEquals(Set.of(), unknown, "active lines that are no option");
  }

  @Test
  void configFile_unchanged_startsTheServerAsNoOptionsWould() throws Exception {
    Map<String, Object> fromFile = settings(ServerConfig.parse(config.toString()));
    Map<String, Object> defaults = settings(ServerConfig.parse());
    assertTrue(defaults.size() >= 19, defaults.keySet().toString());
    assertEquals(defaults, fromFile);
  }

  @Test
  void configFile_commentedOutExamples_areValidSettings() throws Exception {
    assertTrue(COMMENTED_OUT.size() >= 9, COMMENTED_OUT.toString());
    for (Map.Entry<String, String> example : COMMENTED_OUT.entrySet()) {
      if (example.getKey().equals("config")) {
        continue; // it names a file the operator would write
      }
      ServerConfig.builder().set(example.getKey(), unquote(example.getValue()));
    }
  }

  @Test
  void configFile_cfParameters_showTheServersDefaults() throws Exception {
    Map<String, String> shown = new TreeMap<>();
    COMMENTED_OUT.forEach(
        (name, value) -> {
          if (name.startsWith("cf-")) {
            shown.put(name, value);
          }
        });
    assertEquals(5, shown.size(), shown.toString());
    Map<String, String> running = new TreeMap<>();
    try (CuckooServer server =
            CuckooServer.start(
                ServerConfig.parse(
                    config.toString(),
                    "--port",
                    Integer.toString(Dist.freePort()),
                    "--appendonly",
                    "no",
                    "--save",
                    ""));
        RedisClient redis = RedisClient.create("redis://127.0.0.1:" + server.port())) {
      for (String name : shown.keySet()) {
        running.putAll(redis.configGet(name));
      }
    }
    assertEquals(shown, running);
  }

  @Test
  void configRewrite_ofTheShippedFile_changesOnlyTheChangedOptionsAndLoadsAgain(@TempDir Path dir)
      throws Exception {
    Path copy = dir.resolve("cuckoo-server.conf");
    Files.copy(config, copy);
    int port;
    try (CuckooServer server =
            CuckooServer.start(
                ServerConfig.parse(
                    copy.toString(),
                    "--port",
                    Integer.toString(Dist.freePort()),
                    "--appendonly",
                    "no",
                    "--dir",
                    "data"));
        RedisClient redis = RedisClient.create("redis://127.0.0.1:" + server.port())) {
      port = server.port();
      assertEquals(
          "OK",
          redis.configSet(
              Map.of("timeout", "30", "maxmemory", "256mb", "cf-max-iterations", "40")));
      try (Jedis jedis = new Jedis("127.0.0.1", port)) {
        assertEquals("OK", jedis.configRewrite());
      }
    }
    List<String> rewritten = Files.readAllLines(copy, StandardCharsets.UTF_8);
    List<String> changed = new ArrayList<>();
    for (String line : rewritten) {
      if (!lines.contains(line)) {
        changed.add(line);
      }
    }
    // options the command line or CONFIG SET changed: in place where the file has them, the
    // others appended; every comment and every other line as shipped
    assertEquals(
        List.of(
            "port " + port,
            "timeout 30",
            "dir data",
            "appendonly no",
            "# Generated by CONFIG REWRITE",
            "maxmemory 256mb",
            "cf-max-iterations 40",
            // the ACL users, as Redis's rewriteConfigUserOption writes them (the default one too)
            "user default on nopass sanitize-payload ~* &* +@all"),
        changed);
    assertEquals(lines.size() + 4, rewritten.size());
    ServerConfig reloaded = ServerConfig.parse(copy.toString());
    assertEquals(30, reloaded.timeoutSeconds());
    assertEquals(256L << 20, reloaded.maxMemory());
    assertEquals("40", reloaded.cfParameters().get("cf-max-iterations"));
  }

  @Test
  void packagedConfigFile_differsOnlyInTheDataDirectory() throws Exception {
    List<String> packaged = Files.readAllLines(Dist.packagedConfig(), StandardCharsets.UTF_8);
    List<String> differences = new ArrayList<>();
    assertEquals(lines.size(), packaged.size());
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).equals(packaged.get(i))) {
        differences.add(lines.get(i) + " -> " + packaged.get(i));
      }
    }
    assertEquals(List.of("dir ./data -> dir /var/lib/cuckoo"), differences);
    ServerConfig installed = ServerConfig.parse(Dist.packagedConfig().toString());
    assertEquals(Paths.get("/var/lib/cuckoo"), installed.dir());
    assertEquals("127.0.0.1", installed.bind());
    assertTrue(installed.protectedMode());
  }

  /**
   * Every public getter of the config, by name (paths normalized: ./data is data), but the name of
   * the config file itself and the derived views (optionValues, toBuilder).
   */
  private static Map<String, Object> settings(ServerConfig config) throws Exception {
    Map<String, Object> settings = new TreeMap<>();
    Set<String> notSettings = Set.of("configFile", "optionValues", "toBuilder", "parameters");
    for (Method method : ServerConfig.class.getDeclaredMethods()) {
      if (Modifier.isPublic(method.getModifiers())
          && !Modifier.isStatic(method.getModifiers())
          && method.getParameterCount() == 0
          && !notSettings.contains(method.getName())) {
        Object value = method.invoke(config);
        if (value instanceof Path path) {
          value = path.normalize();
        } else if (value instanceof double[] numbers) {
          // arrays compare by identity
          value = java.util.Arrays.stream(numbers).boxed().toList();
        }
        settings.put(method.getName(), value);
      }
    }
    return settings;
  }

  private static String unquote(String value) {
    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1)
        : value;
  }
}
