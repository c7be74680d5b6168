package dev.cuckoo.server.rdb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Known answers recorded from Redis (RDB version 12) with RedisBloom: 27 filters, each with the
 * commands that built it on a fresh server, the raw bytes {@code DUMP} returned, the {@code
 * CF.INFO} reply (a flat list) and the {@code CF.SCANDUMP} chunks. Test resources under {@code
 * redisbloom-dumps/}: {@code <case>.dump} and {@code cases.txt.gz} (one line per fact, fields
 * separated by tabs: {@code case name key file}, {@code cmd arg…}, {@code info field value…},
 * {@code scan iterator hex|nil}, {@code end}). The pseudo command {@code SCANDUMP-LOADCHUNK src
 * dst} copies {@code src} into {@code dst} chunk by chunk.
 */
public final class RecordedDumps {
  private RecordedDumps() {}

  /**
   * One recorded CF.SCANDUMP reply.
   *
   * @param iterator the iterator answered
   * @param data the chunk, null for nil
   */
  public record Chunk(long iterator, byte[] data) {
    @Override
    public String toString() {
      return iterator + ":" + (data == null ? "nil" : HexFormat.of().formatHex(data));
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Chunk chunk
          && chunk.iterator == iterator
          && Arrays.equals(chunk.data, data);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(iterator) * 31 + Arrays.hashCode(data);
    }
  }

  /**
   * One recorded filter.
   *
   * @param name the case's name
   * @param key the key the commands build and DUMP read
   * @param commands the commands, in order
   * @param dump the DUMP payload Redis answered
   * @param info the CF.INFO reply, field names and values alternating, as text
   * @param scanDump the CF.SCANDUMP replies from iterator 0 on
   */
  public record Case(
      String name,
      String key,
      List<List<String>> commands,
      byte[] dump,
      List<String> info,
      List<Chunk> scanDump) {
    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * Returns the 27 recorded cases, in the recorded order.
   *
   * @return the cases
   */
  public static List<Case> all() {
    List<Case> cases = new ArrayList<>();
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(open("cases.txt.gz")), StandardCharsets.US_ASCII))) {
      String name = null;
      String key = null;
      byte[] dump = null;
      List<List<String>> commands = new ArrayList<>();
      List<String> info = List.of();
      List<Chunk> scan = new ArrayList<>();
      for (String line; (line = reader.readLine()) != null; ) {
        List<String> fields = List.of(line.split("\t", -1));
        switch (fields.get(0)) {
          case "case" -> {
            name = fields.get(1);
            key = fields.get(2);
            dump = read(fields.get(3));
            commands = new ArrayList<>();
            scan = new ArrayList<>();
          }
          case "cmd" -> commands.add(fields.subList(1, fields.size()));
          case "info" -> info = fields.subList(1, fields.size());
          case "scan" ->
              scan.add(
                  new Chunk(
                      Long.parseLong(fields.get(1)),
                      fields.get(2).equals("nil") ? null : HexFormat.of().parseHex(fields.get(2))));
          case "end" -> cases.add(new Case(name, key, commands, dump, info, scan));
          default -> throw new IllegalStateException("unknown line: " + line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return cases;
  }

  /**
   * Returns a recorded case by name.
   *
   * @param name the case's name
   * @return the case
   */
  public static Case named(String name) {
    return all().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  private static byte[] read(String file) throws IOException {
    try (InputStream in = open(file)) {
      return in.readAllBytes();
    }
  }

  private static InputStream open(String file) {
    InputStream in = RecordedDumps.class.getResourceAsStream("/redisbloom-dumps/" + file);
    if (in == null) {
      throw new IllegalStateException("missing test resource redisbloom-dumps/" + file);
    }
    return in;
  }

  /**
   * Returns the recorded {@code dump.rdb} (RDB version 12, Redis 8 with RedisBloom): database 0
   * holds the filters {@code small}, {@code grown}, {@code withttl} (expiring at 4102444800000 ms)
   * and the string {@code plainstring}; database 1 the filter {@code indb1}.
   */
  public static byte[] recordedRdb() {
    try (InputStream in =
        RecordedDumps.class.getResourceAsStream("/redisbloom-dumps/dump-v12.rdb")) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
