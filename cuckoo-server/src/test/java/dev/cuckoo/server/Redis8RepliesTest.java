package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Replays the commands of redis8-replies.txt (Redis 8 + RedisBloom's replies, recorded by {@code
 * cuckoo-server/bench/compare-replies.py}) against this server and requires the same normalised
 * reply, byte for byte, for every command but the few {@link #ALLOWED} differences, each with its
 * reason. An allowed difference that no longer differs fails too, so the list stays true.
 */
class Redis8RepliesTest {
  /**
   * A reply allowed to differ from Redis 8's.
   *
   * @param command the command line, exactly as in the file (group title, a colon, the line)
   * @param strip what is removed from both replies before they are compared (the part that may
   *     differ); {@code null}: the whole reply may differ
   * @param reason why this server answers otherwise
   */
  record Allowed(String command, Pattern strip, String reason) {}

  /** The whole reply may differ. */
  private static Allowed whole(String command, String reason) {
    return new Allowed(command, null, reason);
  }

  /** The named CLIENT LIST fields (and the length of the reply) may differ. */
  private static Allowed clientFields(String command) {
    return new Allowed(
        command,
        Pattern.compile(
            "^[$=][0-9]+\\\\r\\\\n|\\$[0-9]+(?=\\\\r\\\\nid=)"
                + "| io-thread= tot-net-in= tot-net-out= tot-cmds=[0-9]+"),
        CLIENT_FIELDS);
  }

  /** The INFO fields named by {@code fieldNames} (and the length of the reply) may differ. */
  private static Allowed fields(String command, String fieldNames, String reason) {
    return new Allowed(
        command,
        Pattern.compile("^[$=][0-9]+\\\\r\\\\n|(?<=\\\\n)(" + fieldNames + ")\\\\r\\\\n"),
        reason);
  }

  private static final String TYPES =
      "a command of a data type this server does not hold (strings, sets, lists, hashes, sorted"
          + " sets, streams, HyperLogLog, Bloom filters): unknown here, WRONGTYPE in Redis";
  private static final String CLIENT_FIELDS =
      "Redis 8.0's CLIENT LIST fields io-thread, tot-net-in, tot-net-out and tot-cmds, which the"
          + " recorded 8.0 development build does not have yet";
  private static final String C_BUILD =
      "INFO fields of Redis's C build, allocator (jemalloc), Lua and functions engines, event"
          + " loop and I/O threads; fields of the JVM instead";
  private static final String INFO_FIELDS =
      "redis_git_sha1|redis_git_dirty|redis_build_id|atomicvar_api|gcc_version|java_version"
          + "|allocator_[a-z_]+|rss_overhead_[a-z]+|mem_allocator"
          + "|mem_aof_buffer|mem_cluster_links"
          + "|mem_not_counted_for_evict|mem_overhead_db_hashtable_rehashing"
          + "|mem_total_replication_buffers|number_of_cached_scripts|number_of_functions"
          + "|number_of_libraries|used_memory_functions|used_memory_lua|used_memory_lua_human"
          + "|used_memory_scripts|used_memory_scripts_eval|used_memory_scripts_human"
          + "|used_memory_vm_[a-z_]+|used_memory_filters|used_memory_heap|max_heap"
          + "|client_output_buffer_limit_disconnections|client_query_buffer_limit_disconnections"
          + "|eventloop_[a-z_]+|instantaneous_eventloop_[a-z_]+|evicted_scripts"
          + "|io_threaded_[a-z_]+|reply_buffer_[a-z]+|available_processors|process_cpu_time_ms";

  /** The replies allowed to differ, each with its reason. */
  static final List<Allowed> ALLOWED =
      List.of(
          whole("Types we do not hold, used on a CF key: GET k", TYPES),
          whole("Types we do not hold, used on a CF key: SADD k m", TYPES),
          whole("Types we do not hold, used on a CF key: LPUSH k v", TYPES),
          whole("Types we do not hold, used on a CF key: HSET k f v", TYPES),
          whole("Types we do not hold, used on a CF key: ZADD k 1 m", TYPES),
          whole("Types we do not hold, used on a CF key: INCR k", TYPES),
          whole("Types we do not hold, used on a CF key: XADD k * f v", TYPES),
          whole("Types we do not hold, used on a CF key: PFADD k a", TYPES),
          whole("Types we do not hold, used on a CF key: BF.ADD k a", TYPES),
          whole("Unknown commands and subcommands, arity: XINFO FOO", TYPES),
          whole("Unknown commands and subcommands, arity: GET", TYPES),
          whole("ACL basics: ACL DRYRUN alice get cf:k", TYPES),
          whole("COMMAND: COUNT, INFO, DOCS, GETKEYS, LIST: COMMAND COUNT", TYPES),
          whole("COMMAND: COUNT, INFO, DOCS, GETKEYS, LIST: COMMAND INFO get", TYPES),
          whole(
              "COMMAND: COUNT, INFO, DOCS, GETKEYS, LIST: COMMAND LIST FILTERBY MODULE bf | sort",
              "RedisBloom's Bloom, count-min sketch, top-k and t-digest commands: not held"),
          whole(
              "ACL basics: ACL CAT | sort",
              "RedisBloom's cms, topk and tdigest categories: those types are not held"),
          whole(
              "COMMAND: COUNT, INFO, DOCS, GETKEYS, LIST: COMMAND LIST FILTERBY ACLCAT connection"
                  + " | sort",
              "CLIENT CACHING, TRACKING and TRACKINGINFO are not implemented"),
          whole(
              "CLIENT subcommands: CLIENT TRACKINGINFO", "no client-side caching (tracking) here"),
          whole("CLIENT subcommands: CLIENT CACHING yes", "no client-side caching (tracking) here"),
          whole(
              "CONFIG GET and SET: CONFIG GET dbfilename",
              "the snapshot is this server's own format, dump.cuckoo, not an RDB file"),
          whole(
              "CONFIG GET and SET: CONFIG GET appendfilename",
              "the log is this server's own format, appendonly.log, not an AOF"),
          whole(
              "CONFIG GET and SET: CONFIG GET rdbcompression",
              "snapshots are not compressed here, and the answer says so"),
          whole("CONFIG GET and SET: CONFIG GET bf-error-rate", "Bloom filters are not held"),
          whole(
              "CONFIG GET and SET: CONFIG GET *repl* | pairs",
              "Redis's parameters for what this server does not have (diskless sync and load,"
                  + " backlog TTL, replica-lazy-flush, ...)"),
          whole(
              "CONFIG GET and SET: CONFIG GET m* | pairs val:maxmemory",
              "Redis's eviction parameters (no eviction here) and this server's"
                  + " max-array-length"),
          whole(
              "DEBUG subcommands: DEBUG HELP",
              "lists the DEBUG subcommands this server has, not Redis's internals"),
          whole(
              "DEBUG subcommands: DEBUG DIGEST-VALUE k",
              "the digest of a CF value is this server's own (RedisBloom gives none)"),
          whole("DEBUG subcommands: DEBUG QUICKLIST-PACKED-THRESHOLD 100", TYPES),
          clientFields("CLIENT subcommands: CLIENT INFO | clientfields"),
          clientFields("CLIENT subcommands: CLIENT LIST | clientfields"),
          clientFields("CLIENT subcommands: CLIENT LIST TYPE normal | clientfields"),
          clientFields("CLIENT subcommands: CLIENT LIST | clientfields sort"),
          clientFields("RESP3 types of common replies: CLIENT INFO | clientfields"),
          clientFields("ACL basics: ACL LOG 1 | number clientfields int"),
          fields("RESP3 types of common replies: INFO server | infonames", INFO_FIELDS, C_BUILD),
          fields("INFO sections (field names): INFO | infonames", INFO_FIELDS, C_BUILD),
          fields("INFO sections (field names): INFO server | infonames", INFO_FIELDS, C_BUILD),
          fields("INFO sections (field names): INFO memory | infonames", INFO_FIELDS, C_BUILD),
          fields("INFO sections (field names): INFO stats | infonames", INFO_FIELDS, C_BUILD),
          fields("INFO sections (field names): INFO cpu | infonames", INFO_FIELDS, C_BUILD),
          fields(
              "INFO sections (field names): INFO server clients | infonames", INFO_FIELDS, C_BUILD),
          fields("INFO sections (field names): INFO SERVER | infonames", INFO_FIELDS, C_BUILD),
          fields("INFO sections (field names): INFO default | infonames", INFO_FIELDS, C_BUILD),
          fields(
              "INFO sections (field names): INFO all | infonames sortlines", INFO_FIELDS, C_BUILD),
          fields(
              "INFO sections (field names): INFO everything | infonames sortlines",
              INFO_FIELDS,
              C_BUILD));

  @Test
  void everyRecordedCommand_answersAsRedis8() throws IOException {
    RecordedReplies file = RecordedReplies.load("redis8-replies.txt");
    List<String> differences = new ArrayList<>();
    Set<String> used = new LinkedHashSet<>();
    int compared = 0;
    try (CuckooServer server =
        CuckooServer.start(TestServers.memoryOnly().enableDebugCommand(true).build())) {
      List<List<String>> actual = file.run(server.port());
      for (int g = 0; g < file.groups.size(); g++) {
        RecordedReplies.Group group = file.groups.get(g);
        for (int c = 0; c < group.commands().size(); c++) {
          RecordedReplies.Command command = group.commands().get(c);
          String got = actual.get(g).get(c);
          String key = group.title() + ": " + command.line;
          compared++;
          Allowed allowed = allowance(key);
          if (allowed != null) {
            if (equalBeside(allowed, command.expected, got)) {
              if (command.expected.equals(got)) {
                differences.add(key + "\n    is allowed to differ but matches: remove it");
              }
              used.add(key);
              continue;
            }
          }
          if (!command.expected.equals(got)) {
            differences.add(key + "\n    Redis 8: " + command.expected + "\n    ours:    " + got);
          }
        }
      }
    }
    for (Allowed allowed : ALLOWED) {
      if (!used.contains(allowed.command())) {
        differences.add(allowed.command() + "\n    is allowed to differ but is not in the file");
      }
    }
    assertEquals("", String.join("\n", differences), "replies that differ from Redis 8's");
    assertTrue(compared > 400, "commands compared: " + compared);
  }

  private static Allowed allowance(String key) {
    for (Allowed allowed : ALLOWED) {
      if (allowed.command().equals(key)) {
        return allowed;
      }
    }
    return null;
  }

  private static boolean equalBeside(Allowed allowed, String expected, String actual) {
    if (allowed.strip() == null) {
      return true;
    }
    return allowed
        .strip()
        .matcher(expected)
        .replaceAll("")
        .equals(allowed.strip().matcher(actual).replaceAll(""));
  }
}
